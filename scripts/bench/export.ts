/**
 * Streamed export benchmark: 1,000,000 cookie-banner records (four category receipts each) in
 * SQLite, then GET /consents/export over the whole period as NDJSON and as CSV, reading the body
 * as it arrives. Reports time to first byte, total time, bytes and lines, and the server
 * process's resident memory: before, its peak while streaming (sampled every 20 ms), and its RSS
 * once 100,000 records had arrived and once all had. The bar is the difference of the last two:
 * an export holds one keyset page, never the result, so its memory must not grow with its size.
 *
 * The server is `svc serve` itself (its bundle rebuilt first), in a process of its own, so its
 * memory is the server's as a user runs it; its CPU time over each export is printed too, per
 * record, to compare builds (`SVC_BENCH_SVC_BIN`) run one after the other on a busy machine.
 *
 * SVC_BENCH_READS=1 also reads a subject with one consent (GET /subjects/:id, 8 connections,
 * 10 s) on the idle server and again while the first export streams, to show what an export
 * costs the requests served beside it.
 *
 *   npm run bench -- export
 *   SVC_BENCH_ROWS=200000 npm run bench -- export     (smaller run)
 *   SVC_BENCH_FORMATS=csv SVC_BENCH_HEAP_MB=128 ...    (one format; a capped server heap)
 *   SVC_BENCH_EXPORT_DB=/tmp/export.db ...             (loads that file once, reuses it after)
 */
import autocannon from "autocannon"
import { existsSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildServerBundle, cpuSeconds, freePort, rssMb, startNode, stop, SVC_BIN } from "./processes.js"
import { loadSyntheticConsents, sampleRss } from "./synthetic-consents.js"

const ROWS = Number(process.env.SVC_BENCH_ROWS ?? 1_000_000)
/** Records after which the server's RSS is taken the first time (the second is after the last). */
const CHECKPOINT = Math.min(100_000, Math.floor(ROWS / 10))
/** Lines per record: CSV has a row per category receipt, and the records loaded here have four. */
const LINES_PER_RECORD = { ndjson: 1, csv: 4 } as const
const API_KEY = "bench-export-key-0123456789abcdef"

const measure = async (url: string, pid: number, linesPerRecord: number) => {
  const before = await rssMb(pid)
  const sampler = sampleRss(pid, before)
  const cpuBefore = await cpuSeconds(pid)
  const started = performance.now()
  const response = await fetch(url, { headers: { authorization: `Bearer ${API_KEY}` } })
  if (response.status !== 200 || response.body === null)
    throw new Error(`export answered ${response.status}: ${await response.text()}`)
  let firstByte = Number.NaN
  let bytes = 0
  let lines = 0
  let atCheckpoint = Number.NaN
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0) firstByte = performance.now() - started
    bytes += chunk.byteLength
    for (const byte of chunk) if (byte === 10) lines++
    if (Number.isNaN(atCheckpoint) && lines >= CHECKPOINT * linesPerRecord) atCheckpoint = await rssMb(pid)
  }
  // Taken as the last chunk has arrived, before the server lets go of the response.
  const atEnd = await rssMb(pid)
  const total = performance.now() - started
  const cpu = await cpuSeconds(pid) - cpuBefore
  const peak = await sampler.stop()
  return { before, peak, atCheckpoint, atEnd, firstByte, total, cpu, bytes, lines }
}

const READ_SECONDS = 10

/** One-consent reads at 8 connections: requests/s and p99 latency. */
const reads = async (url: string) => {
  const result = await autocannon({ url, connections: 8, duration: READ_SECONDS, pipelining: 1 })
  if (result.errors + result.timeouts + result.non2xx > 0) throw new Error(`reads failed: ${JSON.stringify(result)}`)
  return `${Math.round(result.requests.average).toLocaleString("en")} req/s, p99 ${result.latency.p99} ms`
}

/** Saves one consent for a new subject and returns that subject's read URL. */
const subjectToRead = async (origin: string) => {
  const subjectId = `sub_benchread${Date.now().toString(36)}`
  const givenAt = Date.now()
  const response = await fetch(`${origin}/subjects`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      type: "cookie_banner",
      domain: "shop.example",
      subjectId,
      givenAt,
      preferences: { necessary: true, measurement: true, marketing: false, functionality: true, experience: false },
      receipts: {
        measurement: { value: true, confirmedAt: givenAt },
        marketing: { value: false, confirmedAt: givenAt },
        functionality: { value: true, confirmedAt: givenAt },
        experience: { value: false, confirmedAt: givenAt }
      }
    })
  })
  if (!response.ok) throw new Error(`saving the subject to read answered ${response.status}: ${await response.text()}`)
  return `${origin}/subjects/${subjectId}`
}

const dir = await mkdtemp(join(tmpdir(), "svc-bench-export-"))
const kept = process.env.SVC_BENCH_EXPORT_DB
const file = kept ?? join(dir, "export.db")
const port = await freePort()
try {
  // The first start migrates the empty file; the rows are loaded with the server stopped.
  // SVC_BENCH_HEAP_MB caps the server's V8 heap: an export that held its records would run out of it.
  const heap = process.env.SVC_BENCH_HEAP_MB === undefined
    ? []
    : [`--max-old-space-size=${process.env.SVC_BENCH_HEAP_MB}`]
  buildServerBundle()
  const config = join(dir, "svc.config.json")
  await writeFile(
    config,
    JSON.stringify({
      database: { dialect: "sqlite", url: file },
      apiKeys: [API_KEY],
      observability: { requests: "none" }
    })
  )
  const args = [...heap, SVC_BIN, "serve", "--config", config, "--port", String(port), "--host", "127.0.0.1"]
  if (kept !== undefined && existsSync(kept)) {
    console.log(`reusing the records loaded in ${kept}`)
  } else {
    await stop(await startNode(args, /listening on/))
    const loadStart = performance.now()
    loadSyntheticConsents(file, ROWS)
    console.log(
      `loaded ${ROWS.toLocaleString("en")} records in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`
    )
  }
  const server = await startNode(args, /listening on/)
  try {
    const origin = `http://127.0.0.1:${port}`
    const base = `${origin}/consents/export?from=2025-01-01&to=2025-12-31`
    const readUrl = process.env.SVC_BENCH_READS === "1" ? await subjectToRead(origin) : undefined
    if (readUrl !== undefined) console.log(`1-consent reads, idle server: ${await reads(readUrl)}`)
    // SVC_BENCH_FORMATS=csv (or ndjson) runs one format only.
    const formats = (process.env.SVC_BENCH_FORMATS ?? "ndjson,csv").split(",").filter((f): f is "ndjson" | "csv" =>
      f === "ndjson" || f === "csv"
    )
    for (const [i, format] of formats.entries()) {
      const during = readUrl !== undefined && i === 0
        ? new Promise((r) => setTimeout(r, 3_000)).then(() => reads(readUrl))
        : undefined
      const r = await measure(`${base}&format=${format}`, server.pid!, LINES_PER_RECORD[format])
      if (during !== undefined) console.log(`1-consent reads during the ${format} export: ${await during}`)
      console.log(
        `${format.padEnd(6)} ${r.lines.toLocaleString("en")} lines, ${(r.bytes / 1e6).toFixed(0)} MB in ${
          (r.total / 1000).toFixed(1)
        } s ` +
          `(${Math.round(ROWS / (r.total / 1000)).toLocaleString("en")} records/s), first byte after ${
            r.firstByte.toFixed(0)
          } ms; ` +
          `server RSS ${r.before.toFixed(0)} MB before, peak ${r.peak.toFixed(0)} MB while streaming; ` +
          `server CPU ${r.cpu.toFixed(1)} s (${(r.cpu * 1e6 / ROWS).toFixed(1)} µs per record)`
      )
      const growth = r.atEnd - r.atCheckpoint
      console.log(
        `${format.padEnd(6)} server RSS after ${CHECKPOINT.toLocaleString("en")} records ${
          r.atCheckpoint.toFixed(0)
        } MB, after ${ROWS.toLocaleString("en")} ${r.atEnd.toFixed(0)} MB: ${growth >= 0 ? "+" : ""}${
          growth.toFixed(0)
        } MB (bar: flat, within a few MB)`
      )
    }
  } finally {
    await stop(server)
  }
} finally {
  await rm(dir, { recursive: true, force: true })
}
