/**
 * `/init` located by the client IP against `/init` located by an edge header, and what the
 * built-in IP location table costs in memory and per lookup (part of `npm run bench -- init`).
 *
 * - Throughput: one `svc serve` (SQLite, the same manifest as init.ts, built-in table), driven at
 *   32 connections in turns: visitors named by `X-Forwarded-For` (eight public addresses in the
 *   data: DE, FR, US-CA, US-MO, AU, IPv6 DE and FR, GB) and visitors named by `CF-IPCountry: DE`.
 *   Target: the IP lookup within 15% of the edge header.
 * - Memory: idle RSS of that server against one with `geo: { database: false }` (the same
 *   otherwise), each measured a second after start, three times in turn; the difference is what
 *   the table adds. Target ≤ 30 MB.
 * - Lookup: the table's own lookup in this process over 100,000 sampled addresses, read from the
 *   table's file as `svc serve` reads it (`RangeTable.open`). Target ≤ 5 µs.
 *
 *   npx tsx --conditions=@svc/source scripts/bench/init-geo.ts
 */
import autocannon from "autocannon"
import type { ChildProcess } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { tableKey } from "../../packages/backend/src/geo/address.js"
import { builtInPath } from "../../packages/backend/src/geo/databases.js"
import { RangeTable } from "../../packages/backend/src/geo/range-table.js"
import { freePort, ROOT, rssMb, startNode, stop } from "./processes.js"

const DURATION_S = Number(process.env.SVC_BENCH_SECONDS ?? 2.5)
const PATH = "/init?v=3.1.0&contract=1"
const VISITORS = ["80.133.1.1", "90.84.0.1", "8.8.8.8", "208.110.64.1", "1.120.0.1", "2003:e0:1::1", "2a01:cb00::1",
  "81.2.69.142"]
const base = { "accept-language": "de-DE,de;q=0.9,en;q=0.8", "user-agent": "bench/1.0" }

const all = ["measurement", "marketing", "functionality", "experience"]
const config = (dir: string, geo: boolean) => ({
  database: { dialect: "sqlite", url: join(dir, `svc-${geo}.db`) },
  observability: { requests: "none" },
  policySnapshot: { signingKey: "bench-policy-snapshot-signing-key-0123456789" },
  ...(geo ? {} : { geo: { database: false } }),
  manifest: {
    appName: "bench",
    policyRules: [
      { id: "us-ca", match: { regions: ["US-CA"] }, model: "opt-out", categories: all },
      { id: "eea", match: { countries: ["DE", "FR", "AT", "IT", "ES", "NL"] }, model: "opt-in", categories: all },
      { id: "rest", match: { default: true }, model: "opt-out", categories: all }
    ]
  }
})

const start = async (dir: string, geo: boolean) => {
  const file = join(dir, `svc-${geo}.config.json`)
  await writeFile(file, JSON.stringify(config(dir, geo)))
  const port = await freePort()
  const child = await startNode(
    [join(ROOT, "packages/server/bin/svc.js"), "serve", "--config", file, "--port", String(port), "--host",
      "127.0.0.1"],
    /listening on/
  )
  return { child, url: `http://127.0.0.1:${port}${PATH}` }
}

const drive = async (url: string, requests: Array<{ headers: Record<string, string> }>) => {
  const result = await autocannon({ url, connections: 32, duration: DURATION_S, requests, pipelining: 1 })
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

const lookupTime = async () => {
  const table = RangeTable.open(builtInPath())
  let seed = 7
  const next = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0)
  const ips = Array.from({ length: 100_000 }, (_, i) => {
    const n = next()
    return i % 4 === 3
      ? `2a0${n % 3}:${((n >>> 8) & 0xffff).toString(16)}:${(n >>> 16).toString(16)}::1`
      : `${(n >>> 24) || 1}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`
  })
  const lookup = (ip: string) => {
    const key = tableKey(ip)!
    return key.family === 4 ? table.ipv4(key.address) : table.ipv6(key.high, key.low)
  }
  let found = 0
  for (const ip of ips) if (lookup(ip) !== null) found++ // warm-up
  const rounds = 5
  const t0 = performance.now()
  for (let r = 0; r < rounds; r++) for (const ip of ips) if (lookup(ip) !== null) found++
  const us = ((performance.now() - t0) * 1000) / (rounds * ips.length)
  const size = table.size
  table.close()
  return { us, found, size }
}

export const run = async (): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-geo-"))
  const children: Array<ChildProcess> = []
  try {
    const withTable: Array<number> = []
    const without: Array<number> = []
    for (let i = 0; i < 3; i++) {
      for (const geo of [true, false]) {
        const { child } = await start(dir, geo)
        ;(geo ? withTable : without).push(await rssMb(child.pid!))
        await stop(child)
      }
    }
    const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[1]!
    const added = median(withTable) - median(without)

    const svc = await start(dir, true)
    children.push(svc.child)
    const byIp = VISITORS.map((ip) => ({ headers: { ...base, "x-forwarded-for": ip } }))
    const byHeader = [{ headers: { ...base, "cf-ipcountry": "DE" } }]
    const sample = (await (await fetch(svc.url, byIp[0]!)).json()) as {
      policyResolution: { policyId: string; locationSource?: string }
    }
    if (sample.policyResolution.locationSource !== "ip-database")
      throw new Error(`the visitor was not located by IP: ${JSON.stringify(sample.policyResolution)}`)
    await drive(svc.url, byIp) // warm-up
    await drive(svc.url, byHeader)
    const ip: Array<number> = []
    const header: Array<number> = []
    let errors = 0
    let p99 = { ip: 0, header: 0 }
    for (let i = 0; i < 2; i++) {
      const a = await drive(svc.url, byIp)
      const b = await drive(svc.url, byHeader)
      ip.push(a.rps)
      header.push(b.rps)
      errors += a.errors + b.errors
      p99 = { ip: Math.max(p99.ip, a.p99), header: Math.max(p99.header, b.p99) }
    }
    const mean = (xs: Array<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
    const ratio = mean(ip) / mean(header)
    const lookup = await lookupTime()
    const verdict = (ok: boolean) => (ok ? "met" : "MISSED")

    console.log("")
    console.log("/init at 32 connections, two turns each | req/s | p99 ms")
    console.log(`  located by the client IP (built-in table) | ${fmt(mean(ip)).padStart(6)} | ${fmt(p99.ip, 2)}`)
    console.log(
      `  located by CF-IPCountry                   | ${fmt(mean(header)).padStart(6)} | ${fmt(p99.header, 2)}`
    )
    console.log(`  errors: ${errors}`)
    console.log(
      `idle RSS, median of 3 starts: ${fmt(median(withTable), 1)} MB with the built-in table, ${
        fmt(median(without), 1)
      } MB with geo.database: false: the table adds ${fmt(added, 1)} MB`
    )
    console.log(
      `lookup in this process: ${
        fmt(lookup.us * 1000, 0)
      } ns per address (${lookup.size.ipv4.toLocaleString()} IPv4 + ${lookup.size.ipv6.toLocaleString()} IPv6 ranges)`
    )
    console.log(
      `targets: IP lookup within 15% of the edge header: ${verdict(ratio >= 0.85)} (${fmt(100 * ratio, 1)}%); ` +
        `added RSS ≤ 30 MB: ${verdict(added <= 30)} (${fmt(added, 1)} MB); lookup ≤ 5 µs: ${verdict(lookup.us <= 5)} (${
          fmt(lookup.us, 2)
        } µs)`
    )
  } finally {
    for (const child of children.reverse()) await stop(child)
    await rm(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
