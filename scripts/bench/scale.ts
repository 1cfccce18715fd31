/**
 * Reads over a large, monthly partitioned `svc_consents` on PostgreSQL (issue #25): a fresh schema
 * migrated by `svc migrate`, the twelve months before this one made as svc makes its partitions,
 * then SVC_BENCH_ROWS synthetic consents (default 20,000,000; the columns a cookie-banner save
 * writes, ~40 per subject) generated inside the database by one `INSERT ... SELECT ... FROM
 * generate_series`, and ANALYZE. Then `svc serve` on it, timed: a subject read (`GET
 * /subjects/:id`, median of 50 subjects), a one-month NDJSON export read to its end (records/s),
 * and the insight page for that month; and the EXPLAIN (ANALYZE, BUFFERS) of the statements the
 * repositories run for the same three reads (captured as they execute), and the table's size;
 * then what a subject read and a save cost svc and its PostgreSQL backends (CPU per request) and,
 * for a save, the WAL.
 * Prints, never asserts (ADR 0088). The schema is dropped at the end unless SVC_BENCH_KEEP=1.
 * SVC_BENCH_BASELINE_BIN=<another build's svc.js> generates the same rows in a second schema
 * migrated by that build, serves it beside this build's, and times the insight page on both,
 * alternated (SVC_BENCH_INSIGHT_RUNS each, default 3).
 *
 *   npm run bench -- scale
 *   SVC_BENCH_ROWS=2000000 npm run bench -- scale     (smaller run)
 *   SVC_TEST_PG_URL=postgres://... (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { SqlClient, Statement } from "@effect/sql"
import { sqlClientLayer } from "@svc/backend"
import { Effect, Layer } from "effect"
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { ConsentsRepo } from "../../packages/backend/src/consents/repository.js"
import { monthName, monthStart } from "../../packages/backend/src/database/consent-months.js"
import { ReadSqlClient } from "../../packages/backend/src/database/read-client.js"
import { InsightRepo } from "../../packages/backend/src/insight/repository.js"
import { periodTotals } from "../../packages/backend/src/insight/totals.js"
import { PeriodRecordsRepo } from "../../packages/backend/src/records/period-repository.js"
import { backendsCpu, cpuBetween, MANIFEST, walNow, walSince, withApplicationName } from "./pg-costs.js"
import {
  BASELINE_BIN,
  buildServerBundle,
  cpuSeconds,
  freePort,
  ROOT,
  startNode,
  stop,
  SVC_BIN
} from "./processes.js"
import { measureReads, measureSaves } from "./subjects.js"

const ROWS = Number(process.env.SVC_BENCH_ROWS ?? 20_000_000)
const SUBJECTS = Math.max(1, Math.floor(ROWS / 40))
const MONTHS = 12
const URL = process.env.SVC_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const KEEP = process.env.SVC_BENCH_KEEP === "1"
const API_KEY = "bench-scale-key-0123456789abcdef0123456"
const SUBJECT_READS = 50
/** Timed requests of the insight page per server, after one warm-up (SVC_BENCH_INSIGHT_RUNS). */
const INSIGHT_RUNS = Number(process.env.SVC_BENCH_INSIGHT_RUNS ?? 3)
/** The subjects read in turn to time a read's CPU. */
const READ_SUBJECTS = Math.min(SUBJECTS, 1000)
const SAVE_SECONDS = Number(process.env.SVC_BENCH_SECONDS ?? 5)

const now = new Date()
/** Month numbers as svc counts them (year × 12 + month): the twelve before this one. */
const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth()
const firstMonth = thisMonth - MONTHS
const FROM = monthStart(firstMonth)
const SPAN = monthStart(thisMonth) - FROM
/** The month exported and shown on the insight page: the middle one. */
const sampleMonth = firstMonth + MONTHS / 2

/** Subject n's id, as the INSERT below writes it. */
const subjectName = (n: number) => `sub_scale${String(n).padStart(8, "0")}`
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1)
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

/** Row n of generate_series(0, ROWS - 1): given times evenly over the twelve months, subject n mod SUBJECTS. */
const generate = (schema: string) =>
  `INSERT INTO ${schema}.svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at,
    created_at, preferences, receipts, policy_id, policy_fingerprint, ip_address, user_agent, surface, action, country)
  SELECT 'cns_scale' || lpad(n::text, 9, '0'), '', 'sub_scale' || lpad((n % ${SUBJECTS})::text, 8, '0'),
    'key-cns_scale' || n, md5(n::text), 'cookie_banner',
    CASE WHEN n % 3 = 0 THEN 'shop.example' ELSE 'example.com' END, t, t,
    CASE WHEN n % 3 = 0 THEN '{"necessary":true,"measurement":true,"marketing":false,"functionality":true}'
      ELSE '{"necessary":true,"measurement":false,"marketing":true,"functionality":true}' END,
    '{"measurement":{"value":' || (n % 3 = 0) || ',"confirmedAt":' || t || '},"marketing":{"value":' || (n % 3 <> 0)
      || ',"confirmedAt":' || t || '},"functionality":{"value":true,"confirmedAt":' || t
      || '},"experience":{"value":false,"confirmedAt":' || t || '}}',
    'eu-opt-in', 'fp-bench', '203.0.113.0', 'Mozilla/5.0 (bench)', 'banner',
    (ARRAY['accept_all','reject_all','custom'])[1 + n % 3], (ARRAY['DE','FR','US','GB','ES'])[1 + n % 5]
  FROM generate_series(0, ${ROWS - 1}::bigint) AS n,
    LATERAL (SELECT ${FROM}::bigint + (n * ${SPAN}::bigint) / ${ROWS}::bigint AS t) AS g`

/** The statements `read` runs over svc_consents, each EXPLAINed (ANALYZE, BUFFERS) with its parameters. */
const plansOf = (
  schema: string,
  read: Effect.Effect<
    unknown,
    unknown,
    SqlClient.SqlClient | ReadSqlClient | ConsentsRepo | InsightRepo | PeriodRecordsRepo
  >
) => {
  const captured: Array<readonly [string, ReadonlyArray<unknown>]> = []
  const capture: Statement.Statement.Transformer = (statement) =>
    Effect.sync(() => {
      captured.push(statement.compile())
      return statement
    })
  const base = sqlClientLayer({ _tag: "Url", dialect: "postgres", url: URL, schema })
  const repos = Layer.mergeAll(ConsentsRepo.Default, InsightRepo.Default, PeriodRecordsRepo.Default).pipe(
    Layer.provideMerge(Layer.effect(ReadSqlClient, SqlClient.SqlClient)),
    Layer.provideMerge(base)
  )
  return Effect.runPromise(
    Effect.gen(function*() {
      yield* Statement.withTransformer(read, capture)
      const sql = yield* SqlClient.SqlClient
      const plans: Array<string> = []
      for (const [text, params] of captured.filter(([text]) => text.includes("svc_consents"))) {
        const rows = yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)
        plans.push(rows.map((row) => row["QUERY PLAN"]).join("\n"))
      }
      return plans
    }).pipe(Effect.provide(repos))
  )
}

const printPlans = (what: string, plans: ReadonlyArray<string>) => {
  for (const [i, plan] of plans.entries()) {
    console.log(`\n-- EXPLAIN (ANALYZE, BUFFERS) ${what}${plans.length > 1 ? `, statement ${i + 1}` : ""}:\n${plan}`)
  }
}

const get = async (url: string) => {
  const started = performance.now()
  const response = await fetch(url, { headers: { authorization: `Bearer ${API_KEY}` } })
  const body = await response.text()
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${body.slice(0, 300)}`)
  return { ms: performance.now() - started, body }
}

/** Streams the export to its end: records (lines), bytes, seconds. */
const exportMonth = async (url: string) => {
  const started = performance.now()
  const response = await fetch(url, { headers: { authorization: `Bearer ${API_KEY}` } })
  if (response.status !== 200 || response.body === null) {
    throw new Error(`export answered ${response.status}: ${await response.text()}`)
  }
  let firstByte = Number.NaN
  let bytes = 0
  let lines = 0
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0) firstByte = performance.now() - started
    bytes += chunk.byteLength
    for (const byte of chunk) if (byte === 10) lines++
  }
  return { lines, bytes, firstByte, seconds: (performance.now() - started) / 1000 }
}

/** The subjects, as a save makes them (no identity link). */
const generateSubjects = (schema: string) =>
  `INSERT INTO ${schema}.svc_subjects (id, tenant_id, external_id, identity_provider, verified, created_at, updated_at)
  SELECT 'sub_scale' || lpad(n::text, 8, '0'), '', NULL, NULL, 0, ${FROM}, ${FROM}
  FROM generate_series(0, ${SUBJECTS - 1}) AS n`

/**
 * What a save costs beside svc: saves of new subjects at 32 connections for SAVE_SECONDS into the
 * loaded table, with the WAL the whole cluster wrote meanwhile (pg_current_wal_lsn, pg_stat_wal)
 * against an idle window of the same length (other work on the same cluster), svc's CPU and the
 * CPU of its PostgreSQL backends (/proc; the WAL writer, checkpointer and others not counted).
 */
const saveCost = async (client: pg.Client, origin: string, pid: number, name: string) => {
  await measureSaves(origin, 1) // warm-up: pool and statements
  let wal = await walNow(client)
  await new Promise((resolve) => setTimeout(resolve, SAVE_SECONDS * 1000))
  const idle = await walSince(client, wal)
  const backendsBefore = await backendsCpu(client, name)
  const svcBefore = await cpuSeconds(pid)
  wal = await walNow(client)
  const started = performance.now()
  const saved = await measureSaves(origin, SAVE_SECONDS)
  const elapsed = (performance.now() - started) / 1000
  const during = await walSince(client, wal)
  const svcCpu = await cpuSeconds(pid) - svcBefore
  const backendsAfter = await backendsCpu(client, name)
  const saves = saved.answered
  const per = (value: number) => (value / saves).toFixed(2)
  console.log(
    `POST /subjects (new subject, 32 connections, ${SAVE_SECONDS} s into the loaded table): ${
      Math.round(saved.rps)
    } saves/s (${saves.toLocaleString("en-US")} saves), p99 ${saved.p99} ms, ${saved.errors} errors`
  )
  console.log(
    `  svc CPU ${
      (svcCpu * 1e6 / saves).toFixed(0)
    } µs per save; its ${backendsAfter.size} PostgreSQL backends (${backendsBefore.size} before) ${
      (cpuBetween(backendsBefore, backendsAfter) * 1e6 / saves).toFixed(0)
    } µs per save`
  )
  console.log(
    `  WAL during the saves (whole cluster, ${elapsed.toFixed(1)} s): ${
      during.lsnBytes.toLocaleString("en-US")
    } bytes, ${
      during.records.toLocaleString("en-US")
    } records, ${during.fpi} full-page images, ${during.syncs} WAL syncs; per save ${per(during.lsnBytes)} bytes, ${
      per(during.records)
    } records, ${per(during.fpi)} FPIs, ${per(during.syncs)} syncs`
  )
  console.log(
    `  WAL in an idle window of ${SAVE_SECONDS} s just before (other work on the cluster): ${
      idle.lsnBytes.toLocaleString("en-US")
    } bytes, ${idle.records.toLocaleString("en-US")} records, ${idle.syncs} syncs`
  )
}

/**
 * What a subject read costs beside svc: reads of READ_SUBJECTS subjects in turn (~40 consents each,
 * over the twelve months) at 32 connections for SAVE_SECONDS, with svc's CPU and its PostgreSQL
 * backends' CPU per read.
 */
const readCost = async (client: pg.Client, origin: string, pid: number, name: string) => {
  const ids = Array.from({ length: READ_SUBJECTS }, (_, i) => subjectName(Math.floor((i * SUBJECTS) / READ_SUBJECTS)))
  await measureReads(origin, ids, 1) // warm-up: pool and statements
  const backendsBefore = await backendsCpu(client, name)
  const svcBefore = await cpuSeconds(pid)
  const read = await measureReads(origin, ids, SAVE_SECONDS)
  const svcCpu = await cpuSeconds(pid) - svcBefore
  const backendsAfter = await backendsCpu(client, name)
  console.log(
    `GET /subjects/:id (${
      READ_SUBJECTS.toLocaleString("en-US")
    } subjects in turn, 32 connections, ${SAVE_SECONDS} s): ${
      Math.round(read.rps)
    } reads/s, p99 ${read.p99} ms, ${read.errors} errors; svc CPU ${
      (svcCpu * 1e6 / read.answered).toFixed(0)
    } µs per read; its ${backendsAfter.size} PostgreSQL backends ${
      (cpuBetween(backendsBefore, backendsAfter) * 1e6 / read.answered).toFixed(0)
    } µs per read`
  )
}

const tableSize = async (client: pg.Client, schema: string) => {
  const { rows } = await client.query<{ partitions: string; heap: string; indexes: string; total: string }>(
    `SELECT count(*) AS partitions, sum(pg_table_size(c.oid)) AS heap, sum(pg_indexes_size(c.oid)) AS indexes,
       sum(pg_total_relation_size(c.oid)) AS total
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
    [`${schema}.svc_consents`]
  )
  const row = rows[0]!
  return `${row.partitions} partitions, ${mb(Number(row.total))} on disk (table ${mb(Number(row.heap))}, indexes ${
    mb(Number(row.indexes))
  }), ${(Number(row.total) / ROWS).toFixed(0)} bytes per consent`
}

/**
 * A schema of its own for the build `bin`: migrated by that build's `svc migrate`, the months
 * before this one made, SVC_BENCH_ROWS consents generated, analyzed. Returns its config file.
 */
const prepare = async (client: pg.Client, dir: string, bin: string, schema: string) => {
  // A name of its own, so the PostgreSQL backends serving this bench's svc can be told apart.
  const database = { dialect: "postgres", url: withApplicationName(URL, schema), schema }
  const configFile = join(dir, `${schema}.json`)
  await writeFile(
    configFile,
    JSON.stringify({ database, apiKeys: [API_KEY], observability: { requests: "none" }, manifest: MANIFEST })
  )
  const migrated = spawnSync(process.execPath, [bin, "migrate", "--config", configFile], {
    cwd: ROOT,
    encoding: "utf8"
  })
  if (migrated.status !== 0) throw new Error(`svc migrate failed: ${migrated.stderr}${migrated.stdout}`)
  // The months before this one, as svc's partition job makes them (it makes this one and those ahead).
  for (let month = firstMonth; month < thisMonth; month++) {
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.${monthName(month)} PARTITION OF ${schema}.svc_consents
       FOR VALUES FROM (${monthStart(month)}) TO (${monthStart(month + 1)})`
    )
  }
  let started = performance.now()
  await client.query(generateSubjects(schema))
  await client.query(generate(schema))
  console.log(
    `${schema}: generated ${ROWS.toLocaleString("en-US")} consents of ${
      SUBJECTS.toLocaleString("en-US")
    } subjects over ${MONTHS} months (${day(FROM)} to ${day(monthStart(thisMonth) - 1)}) in ${seconds(started)} s`
  )
  started = performance.now()
  await client.query(`VACUUM ANALYZE ${schema}.svc_consents, ${schema}.svc_subjects`)
  console.log(`VACUUM ANALYZE in ${seconds(started)} s`)
  console.log(`svc_consents: ${await tableSize(client, schema)}`)
  return configFile
}

const serve = async (bin: string, configFile: string) => {
  const port = await freePort()
  const server = await startNode(
    [bin, "serve", "--config", configFile, "--port", String(port), "--host", "127.0.0.1"],
    /listening on/
  )
  return { server, origin: `http://127.0.0.1:${port}` }
}

/**
 * The insight page for the sample month, a warm-up and then INSIGHT_RUNS times on each server,
 * the servers alternated in each run (this build's, and the baseline's when there is one).
 */
const timeInsight = async (origins: ReadonlyArray<readonly [string, string]>, from: string, to: string) => {
  const times = new Map(origins.map(([name]) => [name, [] as Array<number>]))
  for (let run = 0; run <= INSIGHT_RUNS; run++) {
    for (const [name, origin] of origins) {
      const { ms } = await get(`${origin}/insight?from=${from}&to=${to}`)
      if (run > 0) times.get(name)!.push(ms) // run 0 warms caches
    }
  }
  for (const [name, measured] of times) {
    console.log(
      `GET /insight ${from}..${to}${origins.length > 1 ? ` (${name})` : ""}: median ${
        median(measured).toFixed(0)
      } ms (${measured.map((t) => t.toFixed(0)).join(", ")}; after one warm-up)`
    )
  }
}

export const run = async (): Promise<void> => {
  buildServerBundle()
  const schema = `svc_bench_scale_${randomBytes(4).toString("hex")}`
  const baseSchema = `${schema}_baseline`
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-scale-"))
  const client = new pg.Client({ connectionString: URL })
  await client.connect()
  try {
    const configFile = await prepare(client, dir, SVC_BIN, schema)
    const baseline = BASELINE_BIN === undefined
      ? undefined
      : await serve(BASELINE_BIN, await prepare(client, dir, BASELINE_BIN, baseSchema))
    const { server, origin } = await serve(SVC_BIN, configFile)
    const from = day(monthStart(sampleMonth))
    const to = day(monthStart(sampleMonth + 1) - 1)
    try {
      const times: Array<number> = []
      for (let i = 0; i < SUBJECT_READS; i++) {
        const subject = subjectName(Math.floor((i * SUBJECTS) / SUBJECT_READS))
        times.push((await get(`${origin}/subjects/${subject}`)).ms)
      }
      console.log(
        `GET /subjects/:id (~${Math.round(ROWS / SUBJECTS)} consents over ${MONTHS} months): median ${
          median(times).toFixed(1)
        } ms, min ${Math.min(...times).toFixed(1)}, max ${Math.max(...times).toFixed(1)} (${SUBJECT_READS} subjects)`
      )
      const exported = await exportMonth(`${origin}/consents/export?from=${from}&to=${to}`)
      console.log(
        `GET /consents/export ${from}..${to} (NDJSON): ${exported.lines.toLocaleString("en-US")} records, ${
          mb(exported.bytes)
        } in ${exported.seconds.toFixed(1)} s (${
          Math.round(exported.lines / exported.seconds).toLocaleString("en-US")
        } records/s), first byte ${exported.firstByte.toFixed(0)} ms`
      )
      await timeInsight(
        [["this build", origin], ...(baseline === undefined ? [] : [["baseline", baseline.origin] as const])],
        from,
        to
      )
      await readCost(client, origin, server.pid!, schema)
      await saveCost(client, origin, server.pid!, schema)
    } finally {
      await stop(server)
      if (baseline !== undefined) await stop(baseline.server)
    }

    const scope = { tenantId: "", fromMs: monthStart(sampleMonth), toMs: monthStart(sampleMonth + 1), domain: null }
    printPlans(
      "GET /subjects/:id",
      await plansOf(
        schema,
        Effect.flatMap(ConsentsRepo, (repo) => repo.listBySubject({ tenantId: "", subjectId: subjectName(1) }))
      )
    )
    printPlans(
      "GET /consents/export, first page",
      await plansOf(
        schema,
        Effect.flatMap(PeriodRecordsRepo, (repo) =>
          repo.page({
            tenantId: "",
            fromMs: scope.fromMs,
            toMs: scope.toMs - 1,
            type: undefined,
            domain: undefined,
            policyId: undefined,
            after: undefined,
            limit: 25
          }))
      )
    )
    printPlans(
      "GET /insight",
      await plansOf(
        schema,
        Effect.flatMap(InsightRepo, (repo) => repo.totals(scope, periodTotals(scope.fromMs, scope.toMs).add))
      )
    )
  } finally {
    if (KEEP) console.log(`kept schema ${schema}${BASELINE_BIN === undefined ? "" : ` and ${baseSchema}`}`)
    else await client.query(`DROP SCHEMA IF EXISTS ${schema}, ${baseSchema} CASCADE`)
    await client.end()
    await rm(dir, { recursive: true, force: true })
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`)
}

run().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
