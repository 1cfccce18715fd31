/**
 * POST /subjects and GET /subjects/:id on the real server against two references: the floor, a
 * minimal Effect `HttpApi` server doing the same statements (scripts/bench/floor-server.ts: what
 * the framework itself allows), and a bare node:http ceiling that uses the same driver
 * (better-sqlite3 / pg) to insert and select equivalent rows.
 *
 * For SQLite, Postgres (SVC_TEST_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres, in a
 * fresh schema) and MySQL (when SVC_TEST_MYSQL_URL is set, in a fresh database on that server): starts `svc serve` in a child process and the ceiling in another, each on its own
 * freshly migrated database, then drives both with autocannon at 32 connections (~5 s each after a
 * warm-up): saves of fresh subjects (every request a new subject id, made in `setupRequest`), and
 * reads of a subject with 1 and with 200 consents. Prints requests/s, p99 and the server's CPU time
 * per request, svc ÷ floor and svc ÷ ceiling. Targets on every dialect: saves ≥ 60% of the floor,
 * reads ≥ 75% (#26).
 *
 * `SVC_BENCH_BASELINE_BIN=<another build's packages/server/bin/svc.js>` adds that build beside this
 * one, on its own database migrated by its own `svc migrate`, and prints svc ÷ baseline.
 * `SVC_BENCH_ROUNDS=n` (default 1) measures every server n times, alternating them in each round, and
 * prints the means: on a busy machine requests/s swing with whatever else runs, the CPU time per
 * request much less. `SVC_BENCH_PATHS=saves` (or `reads`) measures only those paths, and
 * `SVC_BENCH_SERVERS=baseline` only svc and those (of baseline, floor, ceiling), so that
 * more rounds fit in the same minutes.
 *
 *   npx tsx --conditions=@svc/source scripts/bench/subjects.ts        (or `npm run bench -- subjects`)
 *   SVC_BENCH_DIALECTS=sqlite ...                                      (one dialect; or postgres, mysql)
 */
import { generateSignerKey } from "@svc/schema/transparency"
import autocannon from "autocannon"
import { type ChildProcess, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import {
  BASELINE_BIN,
  cpuSeconds,
  freePort,
  ROOT,
  ROUNDS,
  startNode,
  stop,
  SVC_BIN,
  buildServerBundle
} from "./processes.js"
import { ceilingSource } from "./subjects-ceiling.js"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"

/** autocannon's `requests` option (the shared declaration in autocannon.d.ts covers plain URLs only). */
interface RequestSpec {
  readonly method?: string
  readonly path?: string
  readonly headers?: Record<string, string>
  readonly body?: string
  readonly setupRequest?: (request: RequestSpec) => RequestSpec
}
type AutocannonResult = Awaited<ReturnType<typeof autocannon>>
const autocannonWithRequests = autocannon as unknown as (
  options: Parameters<typeof autocannon>[0] & { readonly requests: ReadonlyArray<RequestSpec> }
) => Promise<AutocannonResult>

const DURATION_S = Number(process.env.SVC_BENCH_SECONDS ?? 5)
const CONNECTIONS = 32
const PG_URL = process.env.SVC_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
/** The MySQL server the bench makes its databases on (the URL's own database is not used). */
const MYSQL_URL = process.env.SVC_TEST_MYSQL_URL
const requireFromBackend = createRequire(join(ROOT, "packages/backend/package.json"))
/**
 * `SVC_BENCH_TLOG=<seconds>` runs svc with the transparency log on, checkpointing every that many
 * seconds, so the sequencer works beside the saves (a build before #27 does not know the option).
 */
const TLOG_INTERVAL = process.env.SVC_BENCH_TLOG === undefined || process.env.SVC_BENCH_TLOG === ""
  ? undefined
  : Number(process.env.SVC_BENCH_TLOG)

type Dialect = "sqlite" | "postgres" | "mysql"

/** The paths measured (`SVC_BENCH_PATHS`, default both). */
const PATHS = new Set((process.env.SVC_BENCH_PATHS ?? "saves,reads").split(","))

const subjectId = () => `sub_${randomBytes(12).toString("base64url")}`

const preferences = { necessary: true, measurement: true, marketing: false, functionality: true, experience: false }

/** A save of the kind a browser sends, for a subject never seen before. */
const saveBody = (id: string, givenAt = Date.now()) =>
  JSON.stringify({
    type: "cookie_banner",
    domain: "shop.example",
    subjectId: id,
    givenAt,
    preferences,
    receipts: {
      measurement: { value: true, confirmedAt: givenAt },
      marketing: { value: false, confirmedAt: givenAt },
      functionality: { value: true, confirmedAt: givenAt },
      experience: { value: false, confirmedAt: givenAt }
    },
    action: "custom",
    surface: "dialog",
    timeToDecisionMs: 1800
  })

const HEADERS = { "content-type": "application/json", "user-agent": "bench/1.0", "x-forwarded-for": "198.51.100.23" }

export interface Measured {
  readonly rps: number
  readonly p99: number
  readonly errors: number
  /** Requests answered 2xx (summed over rounds in `mean`). */
  readonly answered: number
  /** The server's CPU time per answered request, in µs (`NaN` without its pid). */
  readonly cpuUs: number
}

/** One autocannon run against the server `pid`, with that server's CPU time per request. */
const measure = async (
  options: Parameters<typeof autocannonWithRequests>[0],
  pid: number | undefined
): Promise<Measured> => {
  const cpuBefore = pid === undefined ? Number.NaN : await cpuSeconds(pid)
  const result = await autocannonWithRequests(options)
  const cpu = pid === undefined ? Number.NaN : await cpuSeconds(pid) - cpuBefore
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    answered: result.requests.total - result.non2xx,
    cpuUs: (cpu * 1e6) / result.requests.total
  }
}

/**
 * Saves of fresh subjects at `connections` (32) for `seconds` (also used by the summary bench's
 * cost-growth check and by scale and capacity).
 */
export const measureSaves = (
  base: string,
  seconds: number,
  pid?: number,
  connections = CONNECTIONS
): Promise<Measured> =>
  measure({
    url: base,
    connections,
    duration: seconds,
    pipelining: 1,
    requests: [{
      method: "POST",
      path: "/subjects",
      headers: HEADERS,
      // every request a new subject: measures first saves, never the idempotent replay path
      setupRequest: (request: RequestSpec) => ({ ...request, body: saveBody(subjectId()) })
    }]
  }, pid)

/** Reads of the subjects `ids` in turn at `connections` (32) for `seconds`. */
export const measureReads = (
  base: string,
  ids: ReadonlyArray<string>,
  seconds: number,
  pid?: number,
  connections = CONNECTIONS
): Promise<Measured> => {
  let next = 0
  return measure({
    url: base,
    connections,
    duration: seconds,
    pipelining: 1,
    requests: [{
      method: "GET",
      path: `/subjects/${ids[0]}`,
      ...(ids.length === 1 ? {} : {
        setupRequest: (request: RequestSpec) => ({ ...request, path: `/subjects/${ids[next++ % ids.length]}` })
      })
    }]
  }, pid)
}

const measureRead = (base: string, id: string, seconds: number, pid?: number): Promise<Measured> =>
  measureReads(base, [id], seconds, pid)

/** The mean of each figure over rounds (errors summed). */
const mean = (runs: ReadonlyArray<Measured>): Measured => {
  const avg = (pick: (m: Measured) => number) => runs.reduce((sum, m) => sum + pick(m), 0) / runs.length
  return {
    rps: avg((m) => m.rps),
    p99: avg((m) => m.p99),
    errors: runs.reduce((sum, m) => sum + m.errors, 0),
    answered: runs.reduce((sum, m) => sum + m.answered, 0),
    cpuUs: avg((m) => m.cpuUs)
  }
}

/** Seeds one subject with `count` consents through `POST /subjects`. */
export const seed = async (base: string, count: number): Promise<string> => {
  const id = subjectId()
  const t = Date.now() - count * 1000
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${base}/subjects`, {
      method: "POST",
      headers: HEADERS,
      body: saveBody(id, t + i * 1000)
    })
    if (response.status !== 200) throw new Error(`seeding failed: ${response.status} ${await response.text()}`)
  }
  return id
}

interface Database {
  readonly database: Record<string, string>
  readonly driverPath: string
  readonly ceilingEnv: Record<string, string>
  readonly drop: () => Promise<void>
}

/** The servers measured, in the order each round runs them. */
type ServerName = "svc" | "baseline" | "floor" | "ceiling"

/** A fresh database for `name`, migrated by `svc migrate` of the build `bin`. */
const freshDatabase = async (dialect: Dialect, dir: string, name: ServerName, bin: string): Promise<Database> => {
  const fresh = `svc_bench_${name}_${randomBytes(4).toString("hex")}`
  const db: Database = dialect === "sqlite"
    ? {
      database: { dialect, url: join(dir, `${name}.db`) },
      driverPath: pathToFileURL(requireFromBackend.resolve("better-sqlite3")).href,
      ceilingEnv: { CEILING_DB: join(dir, `${name}.db`) },
      drop: async () => {}
    }
    : dialect === "postgres"
    ? postgresDatabase(fresh)
    : await mysqlDatabase(fresh)
  const file = join(dir, `migrate-${name}.json`)
  await writeFile(file, JSON.stringify({ database: db.database }))
  const result = spawnSync(process.execPath, [bin, "migrate", "--config", file], { cwd: ROOT, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`svc migrate (${name}) failed: ${result.stderr}${result.stdout}`)
  return db
}

const postgresDatabase = (schema: string): Database => ({
  database: { dialect: "postgres", url: PG_URL, schema },
  driverPath: pathToFileURL(requireFromBackend.resolve("pg")).href,
  ceilingEnv: { CEILING_DB: PG_URL, CEILING_SCHEMA: schema },
  drop: async () => {
    const pg = requireFromBackend("pg") as {
      Client: new(
        o: object
      ) => { connect(): Promise<void>; query(q: string): Promise<unknown>; end(): Promise<void> }
    }
    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await client.end()
  }
})

/** A statement on the MySQL server itself, for making and dropping the bench's databases. */
const onMysqlServer = async (statement: string) => {
  const mysql = requireFromBackend("mysql2/promise") as {
    createConnection(uri: string): Promise<{ query(q: string): Promise<unknown>; end(): Promise<void> }>
  }
  const connection = await mysql.createConnection(MYSQL_URL!)
  try {
    await connection.query(statement)
  } finally {
    await connection.end()
  }
}

/** A fresh database `name` on the MySQL server of SVC_TEST_MYSQL_URL. */
const mysqlDatabase = async (name: string): Promise<Database> => {
  await onMysqlServer(`CREATE DATABASE ${name}`)
  const url = new URL(MYSQL_URL!)
  url.pathname = `/${name}`
  return {
    database: { dialect: "mysql", url: url.toString() },
    driverPath: pathToFileURL(requireFromBackend.resolve("mysql2")).href,
    ceilingEnv: { CEILING_DB: url.toString() },
    drop: () => onMysqlServer(`DROP DATABASE IF EXISTS ${name}`)
  }
}

/** The floor server as one bundle, run by plain Node as `svc serve` runs its own. */
const bundleFloor = async (dir: string): Promise<string> => {
  const { build } = await import("esbuild")
  const outfile = join(dir, "floor.mjs")
  await build({
    entryPoints: [join(ROOT, "scripts/bench/floor-server.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    external: ["pg-native"],
    plugins: [{
      name: "floor-drivers",
      // The native SQLite driver stays external, imported from the file the backend's resolves to
      // (pg is plain JavaScript: bundled, without its optional native binding).
      setup: (builder) =>
        builder.onResolve({ filter: /^better-sqlite3$/ }, (args) => ({
          path: pathToFileURL(requireFromBackend.resolve(args.path)).href,
          external: true
        }))
    }],
    banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' }
  })
  return outfile
}

interface Row {
  readonly dialect: Dialect
  readonly what: string
  /** The mean of each server's rounds. */
  readonly results: ReadonlyMap<ServerName, Measured>
  /** Each server's rounds, in order. */
  readonly rounds: ReadonlyMap<ServerName, ReadonlyArray<Measured>>
}

interface Running {
  readonly name: ServerName
  readonly base: string
  readonly pid: number | undefined
}

/** svc's config for the bench; a baseline build is given no option it may not know. */
const svcConfig = (database: Record<string, string>, baseline: boolean) => ({
  database,
  observability: { requests: "none" },
  ...(TLOG_INTERVAL === undefined || baseline ? {} : {
    transparencyLog: {
      signingKey: generateSignerKey("bench.localhost/log").signerKey,
      checkpointIntervalSeconds: TLOG_INTERVAL
    }
  }),
  manifest: {
    policyRules: [{
      id: "rest",
      match: { default: true },
      model: "opt-out",
      categories: ["measurement", "marketing", "functionality", "experience"]
    }]
  }
})

/** Starts `name` on its own fresh database. */
const startServer = async (
  dialect: Dialect,
  dir: string,
  name: ServerName,
  children: Array<ChildProcess>,
  databases: Array<Database>
): Promise<Running> => {
  const bin = name === "baseline" ? BASELINE_BIN! : SVC_BIN
  const db = await freshDatabase(dialect, dir, name, bin)
  databases.push(db)
  const port = await freePort()
  const started = async (args: ReadonlyArray<string>, ready: RegExp, env?: Record<string, string>) => {
    // the floor's and the ceiling's memory is printed beside svc's
    const child = await startNode(args, ready, env, name === "svc" || name === "baseline" ? undefined : name)
    children.push(child)
    return { name, base: `http://127.0.0.1:${port}`, pid: child.pid }
  }
  if (name === "svc" || name === "baseline") {
    const configFile = join(dir, `${name}.config.json`)
    await writeFile(configFile, JSON.stringify(svcConfig(db.database, name === "baseline")))
    return started(
      [bin, "serve", "--config", configFile, "--port", String(port), "--host", "127.0.0.1"],
      /listening on/
    )
  }
  if (name === "ceiling") {
    const ceilingFile = join(dir, "ceiling.mjs")
    await writeFile(ceilingFile, ceilingSource)
    return started([ceilingFile], /ceiling ready/, {
      CEILING_PORT: String(port),
      CEILING_DIALECT: dialect,
      CEILING_DRIVER: db.driverPath,
      ...db.ceilingEnv
    })
  }
  return started([await bundleFloor(dir)], /Listening on/, {
    FLOOR_PORT: String(port),
    FLOOR_DIALECT: dialect,
    FLOOR_DB: db.ceilingEnv.CEILING_DB!,
    ...(db.ceilingEnv.CEILING_SCHEMA === undefined ? {} : { FLOOR_SCHEMA: db.ceilingEnv.CEILING_SCHEMA })
  })
}

/** `ROUNDS` rounds of `run` on every server, alternating them within a round; the mean of each. */
const alternated = async (
  servers: ReadonlyArray<Running>,
  run: (server: Running) => Promise<Measured>
): Promise<Pick<Row, "results" | "rounds">> => {
  const runs = new Map<ServerName, Array<Measured>>(servers.map((server) => [server.name, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of servers) runs.get(server.name)!.push(await run(server))
  }
  return { results: new Map([...runs].map(([name, measured]) => [name, mean(measured)])), rounds: runs }
}

/**
 * The median over rounds of svc's CPU per request ÷ `name`'s in the same round: the two ran one
 * after the other, under much the same load, so one disturbed round moves it less than the means.
 */
const medianCpuRatio = (row: Row, name: ServerName): number => {
  const svc = row.rounds.get("svc")!
  const other = row.rounds.get(name)!
  const ratios = svc.map((m, i) => m.cpuUs / other[i]!.cpuUs).sort((a, b) => a - b)
  const middle = Math.floor(ratios.length / 2)
  return ratios.length % 2 === 1 ? ratios[middle]! : (ratios[middle - 1]! + ratios[middle]!) / 2
}

const benchDialect = async (dialect: Dialect): Promise<ReadonlyArray<Row>> => {
  const dir = await mkdtemp(join(tmpdir(), `svc-bench-subjects-${dialect}-`))
  const children: Array<ChildProcess> = []
  const databases: Array<Database> = []
  try {
    const chosen = process.env.SVC_BENCH_SERVERS?.split(",")
    const names = (["svc", "baseline", "floor", "ceiling"] as const).filter((name) =>
      name === "svc" ||
      (name !== "baseline" || BASELINE_BIN !== undefined) && (chosen === undefined || chosen.includes(name))
    )
    const servers: Array<Running> = []
    for (const name of names) servers.push(await startServer(dialect, dir, name, children, databases))

    const rows: Array<Row> = []
    // warm-up (JIT, connection pools), then saves of fresh subjects
    for (const server of servers) await measureSaves(server.base, 1)
    if (PATHS.has("saves")) {
      rows.push({
        dialect,
        what: "POST /subjects (new subject)",
        ...(await alternated(servers, (server) => measureSaves(server.base, DURATION_S, server.pid)))
      })
    }
    for (const count of PATHS.has("reads") ? [1, 200] : []) {
      const ids = new Map<ServerName, string>()
      for (const server of servers) {
        ids.set(server.name, await seed(server.base, count))
        await measureRead(server.base, ids.get(server.name)!, 1)
      }
      rows.push({
        dialect,
        what: `GET /subjects/:id (${count} consent${count === 1 ? "" : "s"})`,
        ...(await alternated(
          servers,
          (server) => measureRead(server.base, ids.get(server.name)!, DURATION_S, server.pid)
        ))
      })
    }
    return rows
  } finally {
    for (const child of children.reverse()) await stop(child)
    for (const db of databases) await db.drop()
    await rm(dir, { recursive: true, force: true })
  }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

const printRows = (rows: ReadonlyArray<Row>) => {
  const names = [...(rows[0]?.results.keys() ?? [])]
  const percent = (a: number, b: number) => `${fmt((100 * a) / b, 1)}%`
  console.log(
    `\n${CONNECTIONS} connections, ${DURATION_S} s per measurement, ${ROUNDS} alternated round(s); ` +
      "per server: req/s, p99 ms, CPU µs per request, errors"
  )
  for (const r of rows) {
    const svc = r.results.get("svc")!
    const figures = names.map((name) => {
      const m = r.results.get(name)!
      return `${name} ${fmt(m.rps)} req/s, p99 ${fmt(m.p99, 1)}, ${fmt(m.cpuUs)} µs${
        m.errors > 0 ? `, ${m.errors} errors` : ""
      }`
    })
    const ratios = names.filter((name) => name !== "svc").map((name) => {
      const m = r.results.get(name)!
      const median = ROUNDS > 1 ? ` (median of the rounds' ratios ${fmt(100 * medianCpuRatio(r, name), 1)}%)` : ""
      return `svc ÷ ${name}: ${percent(svc.rps, m.rps)} of its req/s, ${
        percent(svc.cpuUs, m.cpuUs)
      } of its CPU${median}`
    })
    console.log(`${r.dialect} | ${r.what}\n  ${figures.join(" | ")}\n  ${ratios.join(" | ")}`)
  }
}

export const run = async (): Promise<void> => {
  buildServerBundle()
  const rows: Array<Row> = []
  // SVC_BENCH_DIALECTS=sqlite (or postgres, or mysql) runs one dialect only.
  const dialects = (process.env.SVC_BENCH_DIALECTS ?? `sqlite,postgres${MYSQL_URL === undefined ? "" : ",mysql"}`)
    .split(",").filter((d): d is Dialect => d === "sqlite" || d === "postgres" || d === "mysql")
  if (dialects.includes("mysql") && MYSQL_URL === undefined) throw new Error("MySQL needs SVC_TEST_MYSQL_URL")
  for (const dialect of dialects) {
    try {
      rows.push(...(await benchDialect(dialect)))
    } catch (error) {
      console.error(`${dialect}: benchmark failed: ${error instanceof Error ? error.message : String(error)}`)
      if (dialect === "sqlite") throw error
    }
  }
  printRows(rows)
  const ofFloor = (r: Row) => r.results.get("svc")!.rps / r.results.get("floor")!.rps
  const verdict = (ok: boolean) => (ok ? "met" : "MISSED")
  for (const dialect of dialects) {
    const measured = rows.filter((r) => r.dialect === dialect && r.results.has("floor"))
    const saves = measured.find((r) => r.what.startsWith("POST"))
    const reads = measured.filter((r) => r.what.startsWith("GET"))
    const targets = [
      ...(saves === undefined ? [] : [
        `saves ≥ 60% of the floor: ${verdict(ofFloor(saves) >= 0.6)} (${fmt(100 * ofFloor(saves), 1)}%)`
      ]),
      ...(reads.length === 0 ? [] : [(() => {
        const worstRead = Math.min(...reads.map(ofFloor))
        return `reads ≥ 75%: ${verdict(worstRead >= 0.75)} (worst ${fmt(100 * worstRead, 1)}%)`
      })()])
    ]
    if (targets.length > 0) console.log(`targets (${dialect}, ${CONNECTIONS} connections): ${targets.join("; ")}`)
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
