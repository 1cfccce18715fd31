/**
 * Experiment summary benchmark: 1,000,000 attributed cookie-banner saves in SQLite and in
 * Postgres, then GET /experiments/:id/summary on the real server over the whole range, a 7-day
 * window and a domain filter (median of several runs each). Cost growth: POST /subjects (fresh
 * subjects) with 10,000 saves stored and again with all of them; the ratio is the figure (the server
 * runs in this process beside autocannon, so the absolute rates are below `bench subjects`').
 *
 *   npx tsx --conditions=@svc/source scripts/bench/summary.ts            (SVC_TEST_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres)
 *   SVC_BENCH_ROWS=200000 npx tsx scripts/bench/summary.ts    (smaller run)
 *   SVC_BENCH_SKIP_PG=1 ...                                    (SQLite only)
 *   SVC_BENCH_KEEP=1 ...                                       (keep the SQLite file to inspect plans)
 *   SVC_BENCH_RUNS=15 ...                                      (runs per query, default 7)
 *
 * Each query's CPU time is printed too (this process's: the server and the client both run here),
 * to compare builds run one after the other on a busy machine.
 */
import type { SvcOptions } from "@svc/backend"
import { startServer } from "@svc/server"
import Database from "better-sqlite3"
import { randomBytes } from "node:crypto"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { pathToFileURL } from "node:url"
import pg from "pg"
import { measureSaves } from "./subjects.js"

const ROWS = Number(process.env.SVC_BENCH_ROWS ?? 1_000_000)
const BATCH = 10_000
const RUNS = Number(process.env.SVC_BENCH_RUNS ?? 7)
const EXPERIMENT = "banner-copy-2026"
const API_KEY = "bench-key-0123456789abcdef0123-01234"
const DAY = 86_400_000
const ARMS = ["control", "short-copy", "two-buttons", "no-dialog"]
const ACTIONS = ["accept_all", "accept_all", "accept_all", "reject_all", "reject_all", "custom", "opt_out", "unknown"]
const SURFACES = ["banner", "banner", "banner", "dialog", "widget", "api"]
const DOMAINS = ["shop.example", "blog.example", "docs.example", "app.example", "news.example"]

// Deterministic so runs and databases are comparable (mulberry32); reset before each load.
let seed = 0x5eed
const resetRandom = () => {
  seed = 0x5eed
}
const random = (() => {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
})()
const pick = <A>(values: ReadonlyArray<A>): A => values[Math.floor(random() * values.length)]!

const END = Date.UTC(2026, 0, 31, 0, 0, 0)
const START = END - 30 * DAY

interface Row {
  readonly id: string
  readonly subjectId: string
  readonly givenAt: number
  readonly domain: string
  readonly arm: string
  readonly action: string
  readonly surface: string | null
  readonly timeToDecisionMs: number | null
}

const makeRow = (i: number): Row => ({
  id: `cns_bench_${i}`,
  subjectId: `sub_bench${i.toString(36).padStart(8, "0")}`,
  givenAt: START + Math.floor(random() * 30 * DAY),
  domain: pick(DOMAINS),
  arm: pick(ARMS),
  action: pick(ACTIONS),
  surface: random() < 0.05 ? null : pick(SURFACES),
  // Skewed like real decision times: mostly a few seconds, a long tail; 3% never sent one.
  timeToDecisionMs: random() < 0.03 ? null : Math.round(300 + 4000 * Math.pow(random(), 3) * 10)
})

const COLUMNS = `id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at, created_at,
  experiment_id, experiment_arm, action, surface, time_to_decision_ms`

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Rows `from` to `to` (exclusive) of the deterministic load. */
const insertSqlite = (file: string, from: number, to: number) => {
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = OFF")
  const insert = db.prepare(
    `INSERT INTO svc_consents (${COLUMNS}) VALUES (?, '', ?, ?, 'bench', 'cookie_banner', ?, ?, ?, ?, ?, ?, ?, ?)`
  )
  const batch = db.transaction((rows: ReadonlyArray<Row>) => {
    for (const r of rows) {
      insert.run(
        r.id,
        r.subjectId,
        r.id,
        r.domain,
        r.givenAt,
        r.givenAt,
        EXPERIMENT,
        r.arm,
        r.action,
        r.surface,
        r.timeToDecisionMs
      )
    }
  })
  for (let offset = from; offset < to; offset += BATCH) {
    batch(Array.from({ length: Math.min(BATCH, to - offset) }, (_, k) => makeRow(offset + k)))
  }
  db.close()
}

const insertPostgres = async (url: string, schema: string, from: number, to: number) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(`SET search_path TO ${schema}`)
  for (let offset = from; offset < to; offset += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, to - offset) }, (_, k) => makeRow(offset + k))
    await client.query(
      `INSERT INTO svc_consents (${COLUMNS})
       SELECT id, '', subject_id, id, 'bench', 'cookie_banner', domain, given_at, given_at, $9, arm, action, surface, ttd
       FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::int[])
         AS t(id, subject_id, domain, given_at, arm, action, surface, ttd)`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.subjectId),
        rows.map((r) => r.domain),
        rows.map((r) => r.givenAt),
        rows.map((r) => r.arm),
        rows.map((r) => r.action),
        rows.map((r) => r.surface),
        rows.map((r) => r.timeToDecisionMs),
        EXPERIMENT
      ]
    )
  }
  // What autovacuum does shortly after a bulk load: planner statistics and the visibility map.
  await client.query("VACUUM ANALYZE svc_consents")
  await client.end()
}

interface Figures {
  readonly label: string
  readonly insertMs: number
  /** POST /subjects (new subjects, 32 connections): req/s and p99 with 10k rows stored, then with all of them. */
  readonly saves: { readonly small: SaveRate; readonly full: SaveRate }
  readonly timings: ReadonlyArray<
    {
      readonly name: string
      readonly medianMs: number
      readonly minMs: number
      /** This process's CPU time per request (server and client both run here), median of the runs, ms. */
      readonly cpuMs: number
      readonly arms: number
      readonly choices: number
    }
  >
}

const QUERIES = [
  { name: "whole range", query: "" },
  { name: "7-day window", query: "?from=2026-01-24&to=2026-01-30" },
  { name: "domain filter", query: "?domain=shop.example" }
]

interface SaveRate {
  readonly rps: number
  readonly p99: number
}

const SMALL = 10_000
const SAVE_SECONDS = 3

/** Cost growth: the save rate of a server on the database as it is now. */
const saveRate = async (options: SvcOptions, label: string, rows: number): Promise<SaveRate> => {
  const server = await startServer(options, { port: 0, host: "127.0.0.1" })
  try {
    await measureSaves(server.url, 1) // warm-up
    const { rps, p99, errors } = await measureSaves(server.url, SAVE_SECONDS)
    if (errors > 0) throw new Error(`${label}: ${errors} saves failed`)
    console.log(
      `[${label}] POST /subjects with ${rows.toLocaleString("en")} stored: ${rps.toFixed(0)} req/s, p99 ${p99} ms`
    )
    return { rps, p99 }
  } finally {
    await server.close()
  }
}

const timeSummaries = async (
  database: SvcOptions["database"],
  label: string,
  insert: (from: number, to: number) => Promise<void>
): Promise<Figures> => {
  // Migrate (and prove the server starts) on the empty database, load it, then serve it again.
  const options: SvcOptions = { database, apiKeys: [API_KEY], observability: { requests: "none" } }
  await (await startServer(options, { port: 0, host: "127.0.0.1" })).close()
  resetRandom()
  const small = Math.min(SMALL, ROWS)
  const loadStarted = performance.now()
  await insert(0, small)
  let insertMs = performance.now() - loadStarted
  const smallRate = await saveRate(options, label, small)
  const restStarted = performance.now()
  await insert(small, ROWS)
  insertMs += performance.now() - restStarted
  console.log(`[${label}] inserted ${ROWS.toLocaleString("en")} saves in ${seconds(insertMs)}`)
  const fullRate = await saveRate(options, label, ROWS)

  const server = await startServer(options, { port: 0, host: "127.0.0.1" })
  try {
    const timings: Array<Figures["timings"][number]> = []
    for (const { name, query } of QUERIES) {
      const durations: Array<number> = []
      const cpus: Array<number> = []
      let arms = 0
      let choices = 0
      for (let run = 0; run <= RUNS; run++) {
        const cpu = process.cpuUsage()
        const started = performance.now()
        const response = await fetch(`${server.url}/experiments/${EXPERIMENT}/summary${query}`, {
          headers: { authorization: `Bearer ${API_KEY}` }
        })
        const body = (await response.json()) as { arms?: ReadonlyArray<{ choices: number }> }
        const elapsed = performance.now() - started
        const used = process.cpuUsage(cpu)
        if (response.status !== 200) throw new Error(`${label} ${name}: ${response.status} ${JSON.stringify(body)}`)
        if (run > 0) { // run 0 warms caches
          durations.push(elapsed)
          cpus.push((used.user + used.system) / 1000)
        }
        arms = body.arms!.length
        choices = body.arms!.reduce((sum, arm) => sum + arm.choices, 0)
      }
      const medianMs = median(durations)
      const minMs = Math.min(...durations)
      const cpuMs = median(cpus)
      timings.push({ name, medianMs, minMs, cpuMs, arms, choices })
      console.log(
        `[${label}] ${name}: median ${medianMs.toFixed(0)} ms, min ${minMs.toFixed(0)} ms, CPU ${
          cpuMs.toFixed(0)
        } ms over ${RUNS} runs (${arms} arms, ${choices.toLocaleString("en")} saves)`
      )
    }
    return { label, insertMs, saves: { small: smallRate, full: fullRate }, timings }
  } finally {
    await server.close()
  }
}

export const run = async (): Promise<void> => {
  const name = `svc_bench_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`
  const results: Array<Figures> = []

  const file = `${tmpdir()}/${name}.db`
  try {
    results.push(
      await timeSummaries({ dialect: "sqlite", url: file }, "sqlite", async (from, to) => insertSqlite(file, from, to))
    )
  } finally {
    if (process.env.SVC_BENCH_KEEP === "1") console.log(`[sqlite] kept ${file}`)
    else await Promise.all(["", "-wal", "-shm", "-journal"].map((suffix) => rm(file + suffix, { force: true })))
  }

  if (process.env.SVC_BENCH_SKIP_PG !== "1") {
    const url = process.env.SVC_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
    try {
      results.push(
        await timeSummaries(
          { dialect: "postgres", url, schema: name },
          "postgres",
          (from, to) => insertPostgres(url, name, from, to)
        )
      )
    } finally {
      const admin = new pg.Client({ connectionString: url })
      await admin.connect()
      await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`)
      await admin.end()
    }
  }

  console.log(
    `\nGET /experiments/:id/summary over ${ROWS.toLocaleString("en")} saves (median / min of ${RUNS} runs, ms)`
  )
  console.log(`| database | load | ${QUERIES.map((q) => q.name).join(" | ")} |`)
  console.log(`|--|--|${QUERIES.map(() => "--").join("|")}|`)
  for (const r of results) {
    console.log(
      `| ${r.label} | ${seconds(r.insertMs)} | ${
        r.timings.map((t) => `${t.medianMs.toFixed(0)} / ${t.minMs.toFixed(0)}`).join(" | ")
      } |`
    )
  }
  console.log(
    `\nCost growth: POST /subjects (new subjects, 32 connections, ${SAVE_SECONDS} s) with ${
      SMALL.toLocaleString("en")
    } and ${ROWS.toLocaleString("en")} stored`
  )
  console.log("| database | req/s, p99 ms (10k) | req/s, p99 ms (all) | ratio |")
  console.log("|--|--|--|--|")
  for (const r of results) {
    const { full, small } = r.saves
    console.log(
      `| ${r.label} | ${small.rps.toFixed(0)}, ${small.p99} | ${full.rps.toFixed(0)}, ${full.p99} | ${
        (full.rps / small.rps).toFixed(2)
      } |`
    )
  }
  const load = (await import("node:os")).loadavg()[0]!
  console.log(
    `(1-minute load average at the end: ${load.toFixed(1)} on ${(await import("node:os")).cpus().length} cores)`
  )
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  run().catch((error) => {
    console.error(error)
    process.exit(1)
  })
}
