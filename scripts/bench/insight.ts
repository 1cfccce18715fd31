/**
 * GET /insight over a large table, in SQLite and in Postgres: seeds SVC_BENCH_INSIGHT_ROWS
 * cookie-banner consents (default 1,000,000) spread over two years, with actions, rules, GPC
 * proofs, surfaces, decision times, forty visitor countries (skewed, some unknown), two domains and
 * an experiment, then times the page for a one-year and a 30-day period (the page's whole answer:
 * the aggregate queries plus the experiment summaries and the rendering; a warm-up run, then the
 * median and min of three, `SVC_BENCH_INSIGHT_RUNS`), and this process's CPU time per page (the server
 * and the client both run here), to compare builds run one after the other on a busy machine.
 * Target: under 1 s for the year over 1M consents.
 *
 *   npx tsx --conditions=@svc/source scripts/bench/insight.ts   (or `npm run bench -- insight`)
 *   SVC_BENCH_SKIP_PG=1 ...     SQLite only (Postgres: SVC_TEST_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres)
 *   SVC_BENCH_KEEP=1 ...        keep the SQLite file and the Postgres schema to inspect query plans
 */
import type { SvcOptions } from "@svc/backend"
import { startServer } from "@svc/server"
import Database from "better-sqlite3"
import { randomBytes } from "node:crypto"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { pathToFileURL } from "node:url"
import pg from "pg"

const ROWS = Number(process.env.SVC_BENCH_INSIGHT_ROWS ?? 1_000_000)
const KEEP = process.env.SVC_BENCH_KEEP === "1"
/** Timed requests per period, after a warm-up. */
const RUNS = Number(process.env.SVC_BENCH_INSIGHT_RUNS ?? 3)
const BATCH = 10_000
const API_KEY = "bench-insight-key-0123456789abcdef0123"
const DAY = 86_400_000
const ACTIONS = ["accept_all", "reject_all", "custom", "opt_out", null]
const SURFACES = ["banner", "dialog", "widget", null]
const TODAY = Math.floor(Date.now() / DAY) * DAY
/** Forty visitor countries; a row's is skewed toward the first ones, as real traffic is. */
const COUNTRIES = [
  "US",
  "DE",
  "GB",
  "FR",
  "IN",
  "BR",
  "CA",
  "ES",
  "IT",
  "NL",
  "PL",
  "JP",
  "AU",
  "MX",
  "SE",
  "CH",
  "BE",
  "AT",
  "TR",
  "ID",
  "DK",
  "NO",
  "FI",
  "IE",
  "PT",
  "CZ",
  "RO",
  "HU",
  "GR",
  "AR",
  "CL",
  "CO",
  "ZA",
  "NG",
  "KR",
  "SG",
  "NZ",
  "IL",
  "UA",
  "PH"
]
/** A row's country: skewed toward the list's first, and none for one row in twenty (no edge header). */
const countryOf = (i: number) =>
  i % 20 === 0 ? null : COUNTRIES[Math.floor(COUNTRIES.length * ((((i * 7919) % 1000) / 1000) ** 2))]!

interface Row {
  readonly id: string
  readonly subjectId: string
  readonly domain: string
  readonly givenAt: number
  readonly policy: string
  readonly action: string | null
  readonly gpc: string | null
  readonly experiment: string | null
  readonly arm: string | null
  readonly surface: string | null
  readonly timeToDecisionMs: number | null
  readonly country: string | null
}

const makeRow = (i: number): Row => {
  const givenAt = TODAY - (i % 730) * DAY + (i % 86_000) * 1000
  return {
    id: `cns_bench${i}`,
    subjectId: `sub_bench${i % 200_000}`,
    domain: i % 3 === 0 ? "shop.example" : "example.com",
    givenAt,
    policy: ["eu", "us", "rest"][i % 3]!,
    action: ACTIONS[i % 5]!,
    gpc: i % 7 === 0 ? '{"denied":["marketing"],"overridden":[]}' : null,
    experiment: i % 4 === 0 ? "banner-test" : null,
    arm: i % 4 === 0 ? (i % 8 === 0 ? "a" : "b") : null,
    surface: SURFACES[i % 4]!,
    timeToDecisionMs: i % 11 === 0 ? null : 300 + ((i * 7919) % 20_000),
    country: countryOf(i)
  }
}

const COLUMNS =
  `id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at, created_at, preferences, receipts,
  policy_id, action, gpc, experiment_id, experiment_arm, surface, time_to_decision_ms, country`

const seedSqlite = (file: string) => {
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  const insert = db.prepare(`INSERT INTO svc_consents (${COLUMNS})
    VALUES (?, '', ?, ?, 'd', 'cookie_banner', ?, ?, ?, '{}', '{}', ?, ?, ?, ?, ?, ?, ?, ?)`)
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      const r = makeRow(i)
      insert.run(
        r.id,
        r.subjectId,
        `act${i}`,
        r.domain,
        r.givenAt,
        r.givenAt,
        r.policy,
        r.action,
        r.gpc,
        r.experiment,
        r.arm,
        r.surface,
        r.timeToDecisionMs,
        r.country
      )
    }
  })()
  db.pragma("wal_checkpoint(TRUNCATE)")
  db.close()
}

const seedPostgres = async (url: string, schema: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(`SET search_path TO ${schema}`)
  for (let offset = 0; offset < ROWS; offset += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, ROWS - offset) }, (_, k) => makeRow(offset + k))
    const column = <A>(f: (r: Row) => A) => rows.map(f)
    await client.query(
      `INSERT INTO svc_consents (${COLUMNS})
       SELECT id, '', subject_id, 'act' || id, 'd', 'cookie_banner', domain, given_at, given_at, '{}', '{}', policy, action, gpc, experiment, arm, surface, ttd, country
       FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::int[], $12::text[])
         AS t(id, subject_id, domain, given_at, policy, action, gpc, experiment, arm, surface, ttd, country)`,
      [
        column((r) => r.id),
        column((r) => r.subjectId),
        column((r) => r.domain),
        column((r) => r.givenAt),
        column((r) => r.policy),
        column((r) => r.action),
        column((r) => r.gpc),
        column((r) => r.experiment),
        column((r) => r.arm),
        column((r) => r.surface),
        column((r) => r.timeToDecisionMs),
        column((r) => r.country)
      ]
    )
  }
  // What autovacuum does shortly after a bulk load: planner statistics and the visibility map.
  await client.query("VACUUM ANALYZE svc_consents")
  await client.end()
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const timePage = async (database: SvcOptions["database"], label: string, seed: () => Promise<void>) => {
  // Migrate on the empty database, load it, then serve it again.
  const options: SvcOptions = { database, apiKeys: [API_KEY], observability: { requests: "none" } }
  await (await startServer(options, { port: 0, host: "127.0.0.1" })).close()
  const seeded = performance.now()
  await seed()
  console.log(
    `[${label}] seeded ${ROWS.toLocaleString("en-US")} consents in ${
      ((performance.now() - seeded) / 1000).toFixed(1)
    } s`
  )
  const server = await startServer(options, { port: 0, host: "127.0.0.1" })
  try {
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
    for (const [period, from] of [["365 days", TODAY - 364 * DAY], ["30 days", TODAY - 29 * DAY]] as const) {
      const times: Array<number> = []
      const cpus: Array<number> = []
      for (let run = 0; run <= RUNS; run++) {
        const cpu = process.cpuUsage()
        const started = performance.now()
        const response = await fetch(`${server.url}/insight?from=${day(from)}&to=${day(TODAY)}`, {
          headers: { authorization: `Bearer ${API_KEY}` }
        })
        const html = await response.text()
        const elapsed = performance.now() - started
        const used = process.cpuUsage(cpu)
        if (response.status !== 200) throw new Error(`insight answered ${response.status}: ${html.slice(0, 200)}`)
        if (run > 0) { // run 0 warms caches
          times.push(elapsed)
          cpus.push((used.user + used.system) / 1000)
        }
      }
      console.log(
        `[${label}] GET /insight ${period.padEnd(8)}: median ${median(times).toFixed(0)} ms, min ${
          Math.min(...times).toFixed(0)
        } ms, CPU median ${median(cpus).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(", ")}; target < 1000 ms)`
      )
    }
  } finally {
    await server.close()
  }
}

export const run = async (): Promise<void> => {
  const name = `svc_bench_insight_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`
  const file = `${tmpdir()}/${name}.db`
  try {
    await timePage({ dialect: "sqlite", url: file }, "sqlite", async () => seedSqlite(file))
  } finally {
    if (KEEP) console.log(`[sqlite] kept ${file}`)
    else await Promise.all(["", "-wal", "-shm", "-journal"].map((suffix) => rm(file + suffix, { force: true })))
  }
  if (process.env.SVC_BENCH_SKIP_PG !== "1") {
    const url = process.env.SVC_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
    try {
      await timePage({ dialect: "postgres", url, schema: name }, "postgres", () => seedPostgres(url, name))
    } finally {
      if (KEEP) console.log(`[postgres] kept schema ${name}`)
      else {
        const admin = new pg.Client({ connectionString: url })
        await admin.connect()
        await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`)
        await admin.end()
      }
    }
  }
  console.log(`load average ${(await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ")}`)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
