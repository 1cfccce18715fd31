/**
 * Proofs in the streamed export (docs/transparency-log.md, "Proofs in exports"): 100,000 consent
 * records written into the SQLite file of a running `svc serve` with the log on, sequenced by it,
 * then GET /consents/export as NDJSON without and with `proofs=true`, alternately
 * (SVC_BENCH_ROUNDS times each, default 2). Reports
 * records/s, time to first byte, bytes, and the server's RSS: before, its peak while streaming, and
 * after a tenth and after all of the records (flat: an export with proofs holds a page and a
 * bounded node cache, never the tree). Every 500th proof is checked with `verifyConsentProof`, and
 * every proof must name the same checkpoint.
 *
 * The log's leaves are in the order the records were saved (`created_at`); the export reads them
 * in the order they were given (`given_at`). Saved as given (the default), consecutive records
 * have consecutive leaves and share most audit-path nodes; SVC_BENCH_ORDER=scattered saves them
 * in an order unrelated to `given_at` (an import of old consents), the worst case for the cache.
 *
 *   npm run bench -- export-proofs
 *   SVC_BENCH_ROWS=1000000 npm run bench -- export-proofs
 *   SVC_BENCH_ORDER=scattered npm run bench -- export-proofs
 */
import { generateSignerKey } from "@svc/schema/transparency"
import { spawnSync } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { verifyConsentProof } from "@svc/client"
import { buildServerBundle, freePort, rssMb, startNode, stop, SVC_BIN } from "./processes.js"
import { loadSyntheticConsents, sampleRss, waitForLog } from "./synthetic-consents.js"

const ROWS = Number(process.env.SVC_BENCH_ROWS ?? 100_000)
const SCATTERED = process.env.SVC_BENCH_ORDER === "scattered"
const TENTH = Math.floor(ROWS / 10)
const API_KEY = "bench-export-proofs-key-0123456789ab"
const CHECK_EVERY = 500
const { signerKey, verifierKey } = generateSignerKey("bench.localhost/export-proofs")

const gcd = (a: number, b: number): number => b === 0 ? a : gcd(b, a % b)
/** A stride coprime with ROWS, about 0.618 of it: `i * STRIDE % ROWS` is a permutation far from the identity. */
let STRIDE = Math.floor(ROWS * 0.618) | 1
while (gcd(STRIDE, ROWS) !== 1) STRIDE += 2
const scatter = (i: number) => (i * STRIDE) % ROWS

interface ExportProof {
  readonly leafIndex: number
  readonly treeSize: number
  readonly leaf: string
  readonly auditPath: ReadonlyArray<string>
  readonly checkpoint: string
}

/** One export, read as it arrives; with proofs, each line's checkpoint is compared and some proofs checked. */
const measure = async (url: string, pid: number, proofs: boolean) => {
  const before = await rssMb(pid)
  const sampler = sampleRss(pid, before)
  const started = performance.now()
  const response = await fetch(url, { headers: { authorization: `Bearer ${API_KEY}` } })
  if (response.status !== 200 || response.body === null)
    throw new Error(`export answered ${response.status}: ${await response.text()}`)
  let firstByte = Number.NaN
  let bytes = 0
  let lines = 0
  let atTenth = Number.NaN
  let checkpoint: string | undefined
  let checked = 0
  let pending = ""
  const decoder = new TextDecoder()
  const onLine = (line: string) => {
    lines++
    if (!proofs) return
    // The checkpoint is the last field of every line: compared without parsing the line.
    const at = line.lastIndexOf(`"checkpoint":`)
    const note = at === -1 ? undefined : line.slice(at)
    if (note === undefined) throw new Error(`record ${lines} has no proof: ${line.slice(0, 200)}`)
    checkpoint ??= note
    if (note !== checkpoint) throw new Error(`record ${lines} is proved against another checkpoint`)
    if (lines % CHECK_EVERY !== 1) return
    const proof = (JSON.parse(line) as { logProof: ExportProof | null }).logProof
    if (proof === null) throw new Error(`record ${lines} has a null proof`)
    const result = verifyConsentProof(proof, verifierKey)
    if (!result.ok) throw new Error(`record ${lines}'s proof does not verify: ${result.reason}`)
    checked++
  }
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0) firstByte = performance.now() - started
    bytes += chunk.byteLength
    pending += decoder.decode(chunk, { stream: true })
    let newline = pending.indexOf("\n")
    while (newline !== -1) {
      onLine(pending.slice(0, newline))
      pending = pending.slice(newline + 1)
      newline = pending.indexOf("\n")
    }
    if (Number.isNaN(atTenth) && lines >= TENTH) atTenth = await rssMb(pid)
  }
  const atEnd = await rssMb(pid)
  const total = performance.now() - started
  const peak = await sampler.stop()
  if (lines !== ROWS) throw new Error(`the export had ${lines} records, not ${ROWS}`)
  return { before, peak, atTenth, atEnd, firstByte, total, bytes, checked }
}

const dir = await mkdtemp(join(tmpdir(), "svc-bench-export-proofs-"))
try {
  buildServerBundle()
  const file = join(dir, "export-proofs.db")
  const config = join(dir, "svc.config.json")
  await writeFile(
    config,
    JSON.stringify({
      database: { dialect: "sqlite", url: file },
      apiKeys: [API_KEY],
      observability: { requests: "none" },
      transparencyLog: { signingKey: signerKey, checkpointIntervalSeconds: 1 }
    })
  )
  const migrated = spawnSync(process.execPath, [SVC_BIN, "migrate", "--config", config], { encoding: "utf8" })
  if (migrated.status !== 0) throw new Error(`svc migrate failed: ${migrated.stderr}`)
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  // Started before the records are written, as saves would arrive: a server started on a standing
  // backlog of 100,000 took 26 to 37 s to listen on the loaded reference machine.
  const server = await startNode(
    [SVC_BIN, "serve", "--config", config, "--port", String(port), "--host", "127.0.0.1"],
    /listening on/
  )
  try {
    const loadStart = performance.now()
    loadSyntheticConsents(file, ROWS, { log: true, busyTimeoutMs: 60_000, ...(SCATTERED ? { rowAt: scatter } : {}) })
    console.log(
      `loaded ${ROWS.toLocaleString("en")} records (${SCATTERED ? "saved in scattered order" : "saved as given"}) in ${
        ((performance.now() - loadStart) / 1000).toFixed(1)
      } s`
    )
    const sequenceStart = performance.now()
    await waitForLog(origin, ROWS)
    console.log(
      `sequenced into the log ${((performance.now() - sequenceStart) / 1000).toFixed(1)} s; ` +
        `server RSS ${(await rssMb(server.pid!)).toFixed(0)} MB`
    )
    const base = `${origin}/consents/export?from=2025-01-01&to=2025-12-31`
    const rounds = Number(process.env.SVC_BENCH_ROUNDS ?? 2)
    for (const proofs of Array.from({ length: 2 * rounds }, (_, i) => i % 2 === 1)) {
      const r = await measure(proofs ? `${base}&proofs=true` : base, server.pid!, proofs)
      const growth = r.atEnd - r.atTenth
      console.log(
        `${proofs ? "proofs=true " : "no proofs   "} ${(r.bytes / 1e6).toFixed(0)} MB in ${
          (r.total / 1000).toFixed(1)
        } s (${Math.round(ROWS / (r.total / 1000)).toLocaleString("en")} records/s), first byte ${
          r.firstByte.toFixed(0)
        } ms; RSS ${r.before.toFixed(0)} MB before, peak ${r.peak.toFixed(0)} MB, after ${TENTH.toLocaleString("en")} ${
          r.atTenth.toFixed(0)
        } MB, after ${ROWS.toLocaleString("en")} ${r.atEnd.toFixed(0)} MB (${growth >= 0 ? "+" : ""}${
          growth.toFixed(0)
        } MB)${proofs ? `; ${r.checked} proofs checked, one checkpoint` : ""}`
      )
    }
  } finally {
    await stop(server)
  }
} finally {
  await rm(dir, { recursive: true, force: true })
}
