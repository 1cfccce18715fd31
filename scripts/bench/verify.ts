/**
 * Transparency log benchmark (docs/transparency-log.md): 1,000,000 consent records in SQLite,
 * loaded with the server stopped, then `svc serve` with the log on sequences them all (time until
 * a checkpoint covers every record: the sequencer's throughput on a backlog, and how soon the server
 * listens beside it), then `svc verify`
 * recomputes every leaf, the tree and every checkpoint (time, records/s, and what 10M would take
 * at that rate: verify reads and hashes each record once, so its time grows linearly).
 *
 *   npm run bench -- verify
 *   SVC_BENCH_ROWS=200000 npm run bench -- verify     (smaller run)
 */
import { generateSignerKey } from "@svc/schema/transparency"
import { spawnSync } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildServerBundle, freePort, ROOT, startNode, stop } from "./processes.js"
import { loadSyntheticConsents, waitForLog } from "./synthetic-consents.js"

const ROWS = Number(process.env.SVC_BENCH_ROWS ?? 1_000_000)
const svcBin = join(ROOT, "packages/server/bin/svc.js")
const dir = await mkdtemp(join(tmpdir(), "svc-bench-verify-"))
try {
  buildServerBundle()
  const file = join(dir, "verify.db")
  const config = join(dir, "svc.config.json")
  await writeFile(
    config,
    JSON.stringify({
      database: { dialect: "sqlite", url: file },
      observability: { requests: "none" },
      transparencyLog: { signingKey: generateSignerKey("bench.localhost/log").signerKey, checkpointIntervalSeconds: 1 }
    })
  )
  const migrated = spawnSync(process.execPath, [svcBin, "migrate", "--config", config], { encoding: "utf8" })
  if (migrated.status !== 0) throw new Error(`svc migrate failed: ${migrated.stderr}`)
  const loadStart = performance.now()
  loadSyntheticConsents(file, ROWS, { log: true })
  console.log(`loaded ${ROWS.toLocaleString("en")} records in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`)

  const port = await freePort()
  const sequenceStart = performance.now()
  const server = await startNode(
    [svcBin, "serve", "--config", config, "--port", String(port), "--host", "127.0.0.1"],
    /listening on/
  )
  // The sequencer starts on the backlog as the server starts: it takes the event loop's turns
  // between batches, so the port is bound about as soon as on an empty log.
  console.log(`svc serve listening ${((performance.now() - sequenceStart) / 1000).toFixed(1)} s after its start`)
  try {
    await waitForLog(`http://127.0.0.1:${port}`, ROWS)
  } finally {
    await stop(server)
  }
  const sequenced = (performance.now() - sequenceStart) / 1000
  console.log(
    `sequenced ${ROWS.toLocaleString("en")} records into the log in ${sequenced.toFixed(1)} s (${
      Math.round(ROWS / sequenced).toLocaleString("en")
    } records/s, checkpoint every 1 s)`
  )

  const verifyStart = performance.now()
  const verified = spawnSync(process.execPath, [svcBin, "verify", "--config", config], { encoding: "utf8" })
  const seconds = (performance.now() - verifyStart) / 1000
  if (verified.status !== 0) throw new Error(`svc verify failed: ${verified.stdout}${verified.stderr}`)
  const rate = ROWS / seconds
  console.log(verified.stdout.trim())
  console.log(
    `svc verify: ${ROWS.toLocaleString("en")} records in ${seconds.toFixed(1)} s (${
      Math.round(rate).toLocaleString("en")
    } records/s); 10M at this rate: ${(10_000_000 / rate / 60).toFixed(1)} min`
  )
} finally {
  await rm(dir, { recursive: true, force: true })
}
