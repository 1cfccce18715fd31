/**
 * GET /insight over a large table: seeds SQLite with SVC_BENCH_INSIGHT_ROWS cookie-banner consents
 * (default 1,000,000) spread over two years, with actions, rules, GPC proofs, two domains and an
 * experiment, then times the page for a one-year and a 30-day period (three runs each, the page's
 * whole answer: the aggregate queries plus the experiment summaries and the rendering).
 * Target: under 1 s for the year over 1M consents.
 *
 *   npx tsx --conditions=@svc/source scripts/bench/insight.ts   (or `npm run bench -- insight`)
 */
import { startServer } from "@svc/server"
import Database from "better-sqlite3"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"

const ROWS = Number(process.env.SVC_BENCH_INSIGHT_ROWS ?? 1_000_000)
const API_KEY = "bench-insight-key-0123456789abcdef0123"
const DAY = 86_400_000
const ACTIONS = ["accept_all", "reject_all", "custom", "opt_out", null]

export const run = async (): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-insight-"))
  const file = join(dir, "svc.db")
  const server = await startServer({
    database: { dialect: "sqlite", url: file },
    apiKeys: [API_KEY],
    observability: { requests: "none" }
  }, { port: 0, host: "127.0.0.1" })
  try {
    const today = Math.floor(Date.now() / DAY) * DAY
    const seeded = performance.now()
    const db = new Database(file)
    db.pragma("journal_mode = WAL")
    const insert = db.prepare(`INSERT INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at,
      created_at, preferences, receipts, policy_id, action, gpc, experiment_id, experiment_arm)
      VALUES (?, '', ?, ?, 'd', 'cookie_banner', ?, ?, ?, '{}', '{}', ?, ?, ?, ?, ?)`)
    db.transaction(() => {
      for (let i = 0; i < ROWS; i++) {
        const givenAt = today - (i % 730) * DAY + (i % 86_000) * 1000
        insert.run(
          `cns_bench${i}`, `sub_bench${i % 200_000}`, `act${i}`, i % 3 === 0 ? "shop.example" : "example.com", givenAt, givenAt,
          ["eu", "us", "rest"][i % 3], ACTIONS[i % 5], i % 7 === 0 ? "{\"denied\":[\"marketing\"],\"overridden\":[]}" : null,
          i % 4 === 0 ? "banner-test" : null, i % 8 === 0 ? "a" : "b"
        )
      }
    })()
    db.pragma("wal_checkpoint(TRUNCATE)")
    db.close()
    console.log(`seeded ${ROWS.toLocaleString("en-US")} consents in ${((performance.now() - seeded) / 1000).toFixed(1)} s`)

    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
    for (const [label, from] of [["365 days", today - 364 * DAY], ["30 days", today - 29 * DAY]] as const) {
      const times: Array<number> = []
      for (let run = 0; run < 3; run++) {
        const started = performance.now()
        const response = await fetch(`${server.url}/insight?from=${day(from)}&to=${day(today)}`, { headers: { authorization: `Bearer ${API_KEY}` } })
        const html = await response.text()
        if (response.status !== 200) throw new Error(`insight answered ${response.status}: ${html.slice(0, 200)}`)
        times.push(performance.now() - started)
      }
      console.log(`GET /insight ${label.padEnd(8)}: ${times.map((t) => `${t.toFixed(0)} ms`).join(", ")} (target < 1000 ms)`)
    }
  } finally {
    await server.close()
    await rm(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
