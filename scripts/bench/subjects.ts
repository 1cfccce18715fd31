/**
 * POST /subjects and GET /subjects/:id on the real server against two references: the floor, a
 * minimal Effect `HttpApi` server doing the same statements (scripts/bench/floor-server.ts: what
 * the framework itself allows), and a bare node:http ceiling that uses the same driver
 * (better-sqlite3 / pg) to insert and select equivalent rows.
 *
 * For SQLite and Postgres (SVC_TEST_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres, in a
 * fresh schema): starts `svc serve` in a child process and the ceiling in another, each on its own
 * freshly migrated database, then drives both with autocannon at 32 connections (~5 s each after a
 * warm-up): saves of fresh subjects (every request a new subject id, made in `setupRequest`), and
 * reads of a subject with 1 and with 200 consents. Prints requests/s, p99, svc ÷ floor and
 * svc ÷ ceiling. Targets on SQLite: saves ≥ 60% of the floor, reads ≥ 75% (#26).
 *
 *   npx tsx --conditions=@svc/source scripts/bench/subjects.ts        (or `npm run bench -- subjects`)
 *   SVC_BENCH_DIALECTS=sqlite ...                                      (one dialect)
 */
import { generateSignerKey } from "@svc/schema/transparency"
import autocannon from "autocannon"
import { type ChildProcess, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { freePort, ROOT, startNode, stop, SVC_BIN } from "./processes.js"
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
const requireFromBackend = createRequire(join(ROOT, "packages/backend/package.json"))
/**
 * `SVC_BENCH_TLOG=<seconds>` runs svc with the transparency log on, checkpointing every that many
 * seconds, so the sequencer works beside the saves (a build before #27 does not know the option).
 */
const TLOG_INTERVAL = process.env.SVC_BENCH_TLOG === undefined ? undefined : Number(process.env.SVC_BENCH_TLOG)

type Dialect = "sqlite" | "postgres"

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

interface Measured {
  readonly rps: number
  readonly p99: number
  readonly errors: number
}

/** Saves of fresh subjects at 32 connections for `seconds` (also used by the summary bench's cost-growth check). */
export const measureSaves = async (base: string, seconds: number): Promise<Measured> => {
  const result = await autocannonWithRequests({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    pipelining: 1,
    requests: [{
      method: "POST",
      path: "/subjects",
      headers: HEADERS,
      // every request a new subject: measures first saves, never the idempotent replay path
      setupRequest: (request: RequestSpec) => ({ ...request, body: saveBody(subjectId()) })
    }]
  })
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx
  }
}

const measureRead = async (base: string, id: string, seconds: number): Promise<Measured> => {
  const result = await autocannon({
    url: `${base}/subjects/${id}`,
    connections: CONNECTIONS,
    duration: seconds,
    pipelining: 1
  })
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx
  }
}

/** Seeds one subject with `count` consents through `POST /subjects`. */
const seed = async (base: string, count: number): Promise<string> => {
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

/**
 * The ceiling: node:http and the bare driver, no framework. POST inserts a subject and a consent
 * row like svc's (ON CONFLICT DO NOTHING, JSON text columns); GET selects the subject and its
 * consents and answers them as JSON.
 */
const ceilingSource = `
import { createServer } from "node:http"
import { randomBytes } from "node:crypto"
const dialect = process.env.CEILING_DIALECT
const driver = (await import(process.env.CEILING_DRIVER)).default
let insertSubject, insertConsent, selectSubject, selectConsents
if (dialect === "sqlite") {
  const db = new driver(process.env.CEILING_DB)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = FULL") // svc's durability: a save is answered once it survives power loss
  const is = db.prepare("INSERT INTO svc_subjects (id, tenant_id, external_id, identity_provider, verified, created_at, updated_at) VALUES (?, '', NULL, NULL, 0, ?, ?) ON CONFLICT DO NOTHING")
  const ic = db.prepare("INSERT INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at, created_at, preferences, receipts, ip_address, user_agent, action, surface, time_to_decision_ms) VALUES (?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
  const ss = db.prepare("SELECT * FROM svc_subjects WHERE id = ? AND tenant_id = ''")
  const sc = db.prepare("SELECT * FROM svc_consents WHERE subject_id = ? AND tenant_id = '' ORDER BY given_at, created_at, id")
  insertSubject = async (...a) => is.run(...a)
  insertConsent = async (...a) => ic.run(...a)
  selectSubject = async (id) => ss.get(id)
  selectConsents = async (id) => sc.all(id)
} else {
  const url = new URL(process.env.CEILING_DB)
  url.searchParams.set("options", "-c search_path=" + process.env.CEILING_SCHEMA)
  const pool = new driver.Pool({ connectionString: url.toString(), max: 10 })
  insertSubject = (id, a, b) => pool.query("INSERT INTO svc_subjects (id, tenant_id, external_id, identity_provider, verified, created_at, updated_at) VALUES ($1, '', NULL, NULL, 0, $2, $3) ON CONFLICT DO NOTHING", [id, a, b])
  insertConsent = (...a) => pool.query("INSERT INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at, created_at, preferences, receipts, ip_address, user_agent, action, surface, time_to_decision_ms) VALUES ($1, '', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING", a)
  selectSubject = async (id) => (await pool.query("SELECT * FROM svc_subjects WHERE id = $1 AND tenant_id = ''", [id])).rows[0]
  selectConsents = async (id) => (await pool.query("SELECT * FROM svc_consents WHERE subject_id = $1 AND tenant_id = '' ORDER BY given_at, created_at, id", [id])).rows
}
const json = (res, status, value) => {
  const body = JSON.stringify(value)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}
createServer((req, res) => {
  const chunks = []
  req.on("data", (c) => chunks.push(c))
  req.on("end", async () => {
    try {
      if (req.method === "POST") {
        const b = JSON.parse(Buffer.concat(chunks).toString())
        const now = Date.now()
        const id = "cns_" + randomBytes(16).toString("base64url")
        const key = randomBytes(32).toString("hex")
        await insertSubject(b.subjectId, now, now)
        await insertConsent(id, b.subjectId, key, key, b.type, b.domain, b.givenAt, now, JSON.stringify(b.preferences), JSON.stringify(b.receipts), "198.51.100.0", req.headers["user-agent"] ?? null, b.action, b.surface, b.timeToDecisionMs)
        return json(res, 200, { subjectId: b.subjectId, consentId: id, appliedPreferences: b.preferences, givenAt: new Date(b.givenAt).toISOString() })
      }
      const id = req.url.split("/")[2]
      const subject = await selectSubject(id)
      if (subject === undefined) return json(res, 404, { message: "No such subject" })
      const consents = await selectConsents(id)
      return json(res, 200, { subject, consents: consents.map((c) => ({ ...c, preferences: JSON.parse(c.preferences), receipts: JSON.parse(c.receipts) })) })
    } catch (error) {
      json(res, 500, { message: String(error) })
    }
  })
}).listen(Number(process.env.CEILING_PORT), "127.0.0.1", () => console.log("ceiling ready"))
`

interface Database {
  readonly database: Record<string, string>
  readonly driverPath: string
  readonly ceilingEnv: Record<string, string>
  readonly drop: () => Promise<void>
}

/** Fresh databases (svc's, the floor's and the ceiling's), each migrated by `svc migrate`. */
const databases = async (
  dialect: Dialect,
  dir: string
): Promise<{ svc: Database; floor: Database; ceiling: Database }> => {
  const make = async (name: string): Promise<Database> => {
    if (dialect === "sqlite") {
      const file = join(dir, `${name}.db`)
      return {
        database: { dialect, url: file },
        driverPath: pathToFileURL(requireFromBackend.resolve("better-sqlite3")).href,
        ceilingEnv: { CEILING_DB: file },
        drop: async () => {}
      }
    }
    const schema = `svc_bench_${name}_${randomBytes(4).toString("hex")}`
    return {
      database: { dialect, url: PG_URL, schema },
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
    }
  }
  const svc = await make("svc")
  const floor = await make("floor")
  const ceiling = await make("ceiling")
  for (const db of [svc, floor, ceiling]) {
    const file = join(dir, `migrate-${randomBytes(4).toString("hex")}.json`)
    await writeFile(file, JSON.stringify({ database: db.database }))
    const result = spawnSync(
      process.execPath,
      [SVC_BIN, "migrate", "--config", file],
      { cwd: ROOT, encoding: "utf8" }
    )
    if (result.status !== 0) throw new Error(`svc migrate failed: ${result.stderr}${result.stdout}`)
  }
  return { svc, floor, ceiling }
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
  readonly svc: Measured
  readonly floor: Measured
  readonly bare: Measured
}

const benchDialect = async (dialect: Dialect): Promise<ReadonlyArray<Row>> => {
  const dir = await mkdtemp(join(tmpdir(), `svc-bench-subjects-${dialect}-`))
  const children: Array<ChildProcess> = []
  let dbs: { svc: Database; floor: Database; ceiling: Database } | undefined
  try {
    dbs = await databases(dialect, dir)
    const configFile = join(dir, "svc.config.json")
    await writeFile(
      configFile,
      JSON.stringify({
        database: dbs.svc.database,
        observability: { requests: "none" },
        ...(TLOG_INTERVAL === undefined ? {} : {
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
    )
    const port = await freePort()
    children.push(
      await startNode(
        [SVC_BIN, "serve", "--config", configFile, "--port", String(port), "--host", "127.0.0.1"],
        /listening on/
      )
    )
    const ceilingPort = await freePort()
    const ceilingFile = join(dir, "ceiling.mjs")
    await writeFile(ceilingFile, ceilingSource)
    children.push(
      await startNode([ceilingFile], /ceiling ready/, {
        CEILING_PORT: String(ceilingPort),
        CEILING_DIALECT: dialect,
        CEILING_DRIVER: dbs.ceiling.driverPath,
        ...dbs.ceiling.ceilingEnv
      })
    )
    const floorPort = await freePort()
    children.push(
      await startNode([await bundleFloor(dir)], /Listening on/, {
        FLOOR_PORT: String(floorPort),
        FLOOR_DIALECT: dialect,
        FLOOR_DB: dbs.floor.ceilingEnv.CEILING_DB!,
        ...(dbs.floor.ceilingEnv.CEILING_SCHEMA === undefined
          ? {}
          : { FLOOR_SCHEMA: dbs.floor.ceilingEnv.CEILING_SCHEMA })
      })
    )
    const svcBase = `http://127.0.0.1:${port}`
    const floorBase = `http://127.0.0.1:${floorPort}`
    const bareBase = `http://127.0.0.1:${ceilingPort}`

    const rows: Array<Row> = []
    // warm-up (JIT, connection pools), then saves of fresh subjects
    await measureSaves(svcBase, 1)
    await measureSaves(floorBase, 1)
    await measureSaves(bareBase, 1)
    rows.push({
      dialect,
      what: "POST /subjects (new subject)",
      svc: await measureSaves(svcBase, DURATION_S),
      floor: await measureSaves(floorBase, DURATION_S),
      bare: await measureSaves(bareBase, DURATION_S)
    })
    for (const count of [1, 200]) {
      const svcId = await seed(svcBase, count)
      const floorId = await seed(floorBase, count)
      const bareId = await seed(bareBase, count)
      await measureRead(svcBase, svcId, 1)
      await measureRead(floorBase, floorId, 1)
      await measureRead(bareBase, bareId, 1)
      rows.push({
        dialect,
        what: `GET /subjects/:id (${count} consent${count === 1 ? "" : "s"})`,
        svc: await measureRead(svcBase, svcId, DURATION_S),
        floor: await measureRead(floorBase, floorId, DURATION_S),
        bare: await measureRead(bareBase, bareId, DURATION_S)
      })
    }
    return rows
  } finally {
    for (const child of children.reverse()) await stop(child)
    await dbs?.svc.drop()
    await dbs?.floor.drop()
    await dbs?.ceiling.drop()
    await rm(dir, { recursive: true, force: true })
  }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })

export const run = async (): Promise<void> => {
  // `svc serve` runs the bundled build when present: rebuild it so the figures are of this source.
  const build = spawnSync(process.execPath, ["build.mjs"], { cwd: join(ROOT, "packages/server"), encoding: "utf8" })
  if (build.status !== 0) throw new Error(`building the server bundle failed: ${build.stderr}`)
  const rows: Array<Row> = []
  // SVC_BENCH_DIALECTS=sqlite (or postgres) runs one dialect only.
  const dialects = (process.env.SVC_BENCH_DIALECTS ?? "sqlite,postgres").split(",").filter((d): d is Dialect =>
    d === "sqlite" || d === "postgres"
  )
  for (const dialect of dialects) {
    try {
      rows.push(...(await benchDialect(dialect)))
    } catch (error) {
      console.error(`${dialect}: benchmark failed: ${error instanceof Error ? error.message : String(error)}`)
      if (dialect === "sqlite") throw error
    }
  }
  console.log(`\n${CONNECTIONS} connections, ${DURATION_S} s per measurement`)
  console.log(
    "dialect  | measurement                      |  svc req/s | p99 ms | errors || floor req/s | p99 ms || ceiling req/s | p99 ms || svc ÷ floor | svc ÷ ceiling"
  )
  const percent = (a: number, b: number) => `${fmt((100 * a) / b, 1).padStart(6)}%`
  for (const r of rows) {
    console.log(
      `${r.dialect.padEnd(8)} | ${r.what.padEnd(32)} | ${fmt(r.svc.rps).padStart(10)} | ${
        fmt(r.svc.p99, 1).padStart(6)
      } | ${String(r.svc.errors).padStart(6)} || ${fmt(r.floor.rps).padStart(11)} | ${
        fmt(r.floor.p99, 1).padStart(6)
      } || ${fmt(r.bare.rps).padStart(13)} | ${fmt(r.bare.p99, 1).padStart(6)} || ${
        percent(r.svc.rps, r.floor.rps).padStart(11)
      } | ${percent(r.svc.rps, r.bare.rps).padStart(13)}`
    )
  }
  const sqlite = rows.filter((r) => r.dialect === "sqlite")
  const saves = sqlite.find((r) => r.what.startsWith("POST"))
  const reads = sqlite.filter((r) => r.what.startsWith("GET"))
  const ofFloor = (r: Row) => r.svc.rps / r.floor.rps
  const verdict = (ok: boolean) => (ok ? "met" : "MISSED")
  if (saves !== undefined && reads.length > 0) {
    const worstRead = Math.min(...reads.map(ofFloor))
    console.log(
      `targets (SQLite, ${CONNECTIONS} connections): saves ≥ 60% of the floor: ${verdict(ofFloor(saves) >= 0.6)} (${
        fmt(100 * ofFloor(saves), 1)
      }%); reads ≥ 75%: ${verdict(worstRead >= 0.75)} (worst ${fmt(100 * worstRead, 1)}%)`
    )
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
