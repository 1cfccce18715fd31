/**
 * Transparency log benchmark (docs/transparency-log.md): 1,000,000 consent records in SQLite,
 * loaded with the server stopped, then `svc serve` with the log on sequences them all (time until
 * a checkpoint covers every record: the sequencer's throughput on a backlog), then `svc verify`
 * recomputes every leaf, the tree and every checkpoint (time, records/s, and what 10M would take
 * at that rate: verify reads and hashes each record once, so its time grows linearly).
 *
 *   npm run bench -- verify
 *   SVC_BENCH_ROWS=200000 npm run bench -- verify     (smaller run)
 */
import { generateSignerKey } from "@svc/schema/transparency"
import Database from "better-sqlite3"
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, ROOT, startNode, stop } from "./processes.js"
import { syntheticConsent } from "./synthetic-consent.js"

const ROWS = Number(process.env.SVC_BENCH_ROWS ?? 1_000_000)
const BATCH = 10_000

const load = (file: string) => {
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  const insert = db.prepare(
    `INSERT INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at,
    created_at, preferences, receipts, policy_id, policy_fingerprint, ip_address, user_agent, surface, action,
    log_commitment, log_salt)
    VALUES (?, '', ?, ?, 'digest', 'cookie_banner', 'shop.example', ?, ?, ?, ?, 'eu-opt-in', 'fp-bench',
    '203.0.113.0', 'Mozilla/5.0 (bench)', 'banner', 'custom', ?, ?)`
  )
  const many = db.transaction((from: number) => {
    for (let i = from; i < Math.min(from + BATCH, ROWS); i++) {
      const row = syntheticConsent(i, ROWS)
      insert.run(
        row.id,
        row.subjectId,
        row.actKey,
        row.givenAt,
        row.givenAt,
        JSON.stringify({ necessary: true, measurement: row.granted, marketing: !row.granted, functionality: true }),
        row.receipts,
        randomBytes(32).toString("base64"),
        randomBytes(16).toString("base64")
      )
    }
  })
  for (let from = 0; from < ROWS; from += BATCH) many(from)
  db.close()
}

const svcBin = join(ROOT, "packages/server/bin/svc.js")
const dir = await mkdtemp(join(tmpdir(), "svc-bench-verify-"))
try {
  const build = spawnSync(process.execPath, ["build.mjs"], { cwd: join(ROOT, "packages/server"), encoding: "utf8" })
  if (build.status !== 0) throw new Error(`building the server bundle failed: ${build.stderr}`)
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
  load(file)
  console.log(`loaded ${ROWS.toLocaleString("en")} records in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`)

  const port = await freePort()
  const sequenceStart = performance.now()
  const server = await startNode(
    [svcBin, "serve", "--config", config, "--port", String(port), "--host", "127.0.0.1"],
    /listening on/
  )
  try {
    for (;;) {
      // A busy SQLite server may drop a connection while a batch holds the event loop: ask again.
      const response = await fetch(`http://127.0.0.1:${port}/log/checkpoint`).catch(() => undefined)
      const size = response?.status === 200 ? Number((await response.text()).split("\n")[1]) : 0
      if (size >= ROWS) break
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
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
