import { SqlClient } from "@effect/sql"
import { SubjectId } from "@svc/schema"
import {
  ConsentExports,
  Consents,
  ReadSqlClient,
  resolveOptions,
  sqlClientLayer,
  SvcServices,
  type SqlDialect
} from "@svc/backend"
import { type RunningServer, startServer } from "@svc/server"
import { Chunk, Effect, Stream } from "effect"
import { randomBytes } from "node:crypto"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { problemsOf } from "./support/config-problems.js"
import { cookieSave, newSubjectId, postCookieSave } from "./support/consent-saves.js"
import { freshDatabase, type FreshDatabase, serverDialects } from "./support/dialects.js"
import { optionalServers } from "./support/optional-servers.js"
import { freePort, type PgReplicas, startPgReplicas } from "./support/pg-replicas.js"
import { describeWith } from "./support/server-suites.js"
import { startTcpProxy } from "./support/tcp-proxy.js"

/*
 * `database.readUrl` (and `readLayer`): exports, the insight page and experiment summaries read
 * from the read database; saves, subject reads and everything else from the primary. Proven with
 * a read database that holds other rows than the primary (every dialect with a server, and SQLite
 * through `readLayer`), and on a real streaming standby whose replay is paused (SVC_TEST_PG_BIN).
 */

const API_KEY = "read-routing-key-0123456789abcdef0123"
const admin = { authorization: `Bearer ${API_KEY}` }
const quiet = { observability: { requests: "none" as const }, apiKeys: [API_KEY] }
const listen = { port: 0, host: "127.0.0.1" }
const today = new Date().toISOString().slice(0, 10)
const unique = () => randomBytes(4).toString("hex")

/** The subject ids of an NDJSON export's records. */
const exportedSubjects = async (base: string, query: string) => {
  const response = await fetch(`${base}/consents/export?from=${today}&to=${today}&${query}`, { headers: admin })
  expect(response.status).toBe(200)
  const text = await response.text()
  return text.split("\n").filter((line) => line !== "").map((line) =>
    String((JSON.parse(line) as { principal: { subjectId: string } }).principal.subjectId)
  )
}

/** The insight page's total of decisions for `domain` today. */
const insightTotal = async (base: string, domain: string) => {
  const response = await fetch(`${base}/insight?from=${today}&to=${today}&domain=${domain}`, { headers: admin })
  expect(response.status).toBe(200)
  const match = /<p class="kpi" id="total-decisions">(\d+)<\/p>/.exec(await response.text())
  return Number(match?.[1])
}

/** Arm names and their choices in an experiment's summary. */
const summaryArms = async (base: string, experimentId: string) => {
  const response = await fetch(`${base}/experiments/${experimentId}/summary`, { headers: admin })
  expect(response.status).toBe(200)
  const body = await response.json() as { arms: Array<{ arm: string; choices: number }> }
  return Object.fromEntries(body.arms.map((arm) => [arm.arm, arm.choices]))
}

describe("database.readUrl and readLayer: configuration", () => {
  it("the README's read-routing example is a configuration svc accepts", async () => {
    const options = (await import("../../../examples/read-routing.config.js")).default
    expect(resolveOptions(options).database).toMatchObject({ readUrl: expect.stringContaining("prefer-standby") })
  })

  it("SQLite refuses readUrl: one file has no standby", () => {
    expect(problemsOf({ database: { dialect: "sqlite", url: ":memory:", readUrl: "./replica.db" } })).toEqual([
      "database.readUrl: SQLite is one file with no standby to read from; remove readUrl (or use postgres or mysql)"
    ])
  })

  it("a read URL of another dialect, unreadable libpq parameters or an empty one are refused, never quoting the URL", () => {
    const secret = "s3cret-read-password"
    const cases: ReadonlyArray<readonly [SqlDialect, string, string]> = [
      [
        "postgres",
        `mysql://svc:${secret}@replica/svc`,
        "database.readUrl: not a postgres URL; a postgres URL looks like postgres://user:password@host:5432/database"
      ],
      [
        "postgres",
        `postgres://svc:${secret}@db1,db2/svc?target_session_attrs=leader`,
        "database.readUrl: target_session_attrs must be one of any, read-write, read-only, primary, standby, prefer-standby"
      ],
      [
        "mysql",
        `postgres://svc:${secret}@replica/svc`,
        "database.readUrl: not a mysql URL; a mysql URL looks like mysql://user:password@host:3306/database"
      ],
      ["postgres", "", "database.readUrl: must be a non-empty string"]
    ]
    for (const [dialect, readUrl, problem] of cases) {
      const url = dialect === "postgres" ? "postgres://svc@db/svc" : "mysql://svc@db/svc"
      const problems = problemsOf({ database: { dialect, url, readUrl } })
      expect(problems).toEqual([problem])
      expect(problems.join("\n")).not.toContain(secret)
    }
  })

  it("readUrl belongs beside url; beside layer the read side is readLayer", () => {
    const layer = sqlClientLayer(resolveOptions({ database: { dialect: "sqlite", url: ":memory:" } }).database)
    expect(problemsOf({ database: { layer, readUrl: "postgres://db/svc" } })).toEqual([
      "database.readUrl: beside layer, give the read side as readLayer (an SqlClient layer)"
    ])
    expect(problemsOf({ database: { layer, readLayer: "postgres://db/svc" } })).toEqual([
      "database.readLayer: must be an SqlClient layer (as layer is)"
    ])
    expect(problemsOf({ database: { dialect: "postgres", url: "postgres://db/svc", readLayer: layer } })).toEqual([
      "database.readLayer: only beside layer; beside url, give the read side as readUrl"
    ])
  })

  it("a multi-host PostgreSQL read URL and a MySQL one are accepted and kept apart from url", () => {
    const pgRead = "postgres://svc@db1:5432,db2:5432/svc?target_session_attrs=prefer-standby&sslmode=prefer"
    const pgConfig = resolveOptions({
      database: { dialect: "postgres", url: "postgres://svc@db1/svc", readUrl: pgRead }
    })
    expect(pgConfig.database).toMatchObject({ _tag: "Url", url: "postgres://svc@db1/svc", readUrl: pgRead })
    const mysqlConfig = resolveOptions({
      database: { dialect: "mysql", url: "mysql://svc@db/svc", readUrl: "mysql://svc@replica/svc" }
    })
    expect(mysqlConfig.database).toMatchObject({ readUrl: "mysql://svc@replica/svc" })
    expect(resolveOptions({ database: { dialect: "sqlite", url: ":memory:" } }).database).toMatchObject({
      readUrl: undefined
    })
  })
})

describe("ReadSqlClient through SvcServices.layer (SQLite)", () => {
  const files: Array<string> = []
  const file = () => {
    const path = join(tmpdir(), `svc_read_${Date.now().toString(36)}_${unique()}.db`)
    files.push(path)
    return path
  }
  afterAll(() =>
    Promise.all(files.flatMap((path) => ["", "-wal", "-shm"].map((suffix) => rm(path + suffix, { force: true }))))
  )

  it("without a read side ReadSqlClient is the primary's own SqlClient", async () => {
    const same = Effect.gen(function*() {
      return (yield* ReadSqlClient) === (yield* SqlClient.SqlClient)
    }).pipe(Effect.provide(SvcServices.layer({ database: { dialect: "sqlite", url: file() } }, { migrate: true })))
    expect(await Effect.runPromise(same)).toBe(true)
  })

  it("{ layer, readLayer }: ConsentExports reads the read layer's database, Consents writes the primary", async () => {
    const primaryFile = file()
    const readFile = file()
    const layerOf = (url: string) => sqlClientLayer(resolveOptions({ database: { dialect: "sqlite", url } }).database)
    const save = (subjectId: string) =>
      Effect.flatMap(Consents, (consents) =>
        consents.record({
          type: "cookie_banner",
          domain: "example.com",
          subjectId: SubjectId.make(subjectId),
          givenAt: new Date(),
          preferences: { necessary: true, measurement: true, marketing: false, functionality: true, experience: true }
        }))
    const exported = Effect.flatMap(ConsentExports, (exports) => exports.stream({ from: today, to: today })).pipe(
      Effect.flatMap((text) => Stream.runCollect(text)),
      Effect.map((chunks) =>
        Chunk.join(chunks, "").split("\n").filter((line) => line !== "").map((line) =>
          String((JSON.parse(line) as { principal: { subjectId: string } }).principal.subjectId)
        )
      )
    )
    const onRead = newSubjectId()
    const onPrimary = newSubjectId()
    // The read database: migrated and holding one act of its own.
    await Effect.runPromise(
      save(onRead).pipe(
        Effect.provide(SvcServices.layer({ database: { layer: layerOf(readFile) } }, { migrate: true }))
      )
    )
    const routed = SvcServices.layer({ database: { layer: layerOf(primaryFile), readLayer: layerOf(readFile) } }, {
      migrate: true
    })
    const [subjects, primaryCount, readCount] = await Effect.runPromise(
      Effect.gen(function*() {
        yield* save(onPrimary)
        const subjects = yield* exported
        const count = (sql: SqlClient.SqlClient) =>
          Effect.map(sql<{ n: number }>`SELECT count(*) AS n FROM svc_consents WHERE subject_id = ${onPrimary}`, (
            [row]
          ) => row?.n)
        return [subjects, yield* count(yield* SqlClient.SqlClient), yield* count(yield* ReadSqlClient)] as const
      }).pipe(Effect.provide(routed))
    )
    expect(subjects).toEqual([onRead])
    expect(primaryCount).toBe(1)
    expect(readCount).toBe(0)
  })
})

/** A second database of `dialect`, with `primary`'s schema name (PostgreSQL) so the same `schema` option fits both. */
const secondDatabase = async (dialect: SqlDialect, primary: FreshDatabase) => {
  if (dialect === "mysql") {
    const db = await freshDatabase("mysql")
    return { url: db.database.url, query: db.query, drop: db.drop }
  }
  const base = optionalServers.postgres.url!
  const name = `svc_r_${Date.now().toString(36)}_${unique()}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  return {
    url: url.toString(),
    query: async (text: string, params: ReadonlyArray<unknown> = []) => {
      let i = 0
      await client.query(`SET search_path TO ${primary.database.schema}`)
      return (await client.query(text.replace(/\?/g, () => `$${++i}`), [...params])).rows
    },
    drop: async () => {
      await client.end()
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }
  }
}

describe.each(serverDialects)("database.readUrl on %s: the read database serves exports, insight and summaries", (
  dialect
) => {
  let primary: FreshDatabase
  let read: Awaited<ReturnType<typeof secondDatabase>>
  let server: RunningServer
  const domain = `read-${unique()}.example`
  const experiment = `exp-${unique()}`
  const onRead: Array<string> = []
  let onPrimary: string

  beforeAll(async () => {
    primary = await freshDatabase(dialect)
    read = await secondDatabase(dialect, primary)
    // The read database gets svc's tables and two acts the primary never sees.
    const readOnly = await startServer({ ...quiet, database: { ...primary.database, url: read.url } }, listen)
    try {
      for (const arm of ["a", "a"]) {
        const saved = await postCookieSave(readOnly.url, { domain, experiment: { id: experiment, arm } })
        expect(saved.status).toBe(200)
        onRead.push(String(saved.body["subjectId"]))
      }
    } finally {
      await readOnly.close()
    }
    server = await startServer({ ...quiet, database: { ...primary.database, readUrl: read.url } }, listen)
    const saved = await postCookieSave(server.url, { domain, experiment: { id: experiment, arm: "b" } })
    expect(saved.status).toBe(200)
    onPrimary = String(saved.body["subjectId"])
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await read?.drop()
    await primary?.drop()
  })

  it("a save goes to the primary only", async () => {
    expect(await primary.query("SELECT subject_id FROM svc_consents WHERE subject_id = ?", [onPrimary])).toHaveLength(1)
    expect(await read.query("SELECT subject_id FROM svc_consents WHERE subject_id = ?", [onPrimary])).toHaveLength(0)
  })

  it("the export, the insight page and the experiment summary read the read database", async () => {
    expect((await exportedSubjects(server.url, `domain=${domain}`)).sort()).toEqual([...onRead].sort())
    expect(await insightTotal(server.url, domain)).toBe(2)
    expect(await summaryArms(server.url, experiment)).toEqual({ a: 2 })
  })

  it("a subject read after a save reads the primary", async () => {
    expect((await fetch(`${server.url}/subjects/${onPrimary}`)).status).toBe(200)
    expect((await fetch(`${server.url}/subjects/${onRead[0]}`)).status).toBe(404)
  })
})

describeWith(optionalServers.postgres, "database.readUrl on PostgreSQL: no host of it answers", () => {
  let db: FreshDatabase
  let server: RunningServer
  beforeAll(async () => {
    db = await freshDatabase("postgres")
    const readUrl = `postgres://postgres@127.0.0.1:${await freePort()}/svc?target_session_attrs=prefer-standby`
    server = await startServer({ ...quiet, database: { ...db.database, readUrl } }, listen)
  })
  afterAll(async () => {
    await server?.close()
    await db?.drop()
  })

  it("svc starts and saves; exports, insight and summaries answer 503 DATABASE_ERROR; the instance stays ready", async () => {
    const saved = await postCookieSave(server.url)
    expect(saved.status).toBe(200)
    expect((await fetch(`${server.url}/subjects/${String(saved.body["subjectId"])}`)).status).toBe(200)
    for (const path of [`/consents/export?from=${today}&to=${today}`, `/insight?from=${today}&to=${today}`,
      "/experiments/x/summary"])
    {
      const response = await fetch(`${server.url}${path}`, { headers: admin })
      expect(response.status, path).toBe(503)
      expect(((await response.json()) as { cause: { code: string } }).cause.code, path).toBe("DATABASE_ERROR")
    }
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200)
  })
})

describeWith(optionalServers.mysql, "database.readUrl on MySQL: a read server that does not answer at start", () => {
  it("refuses to start, naming database.readUrl and the driver's reason, never the password", async () => {
    const db = await freshDatabase("mysql")
    try {
      const readUrl = `mysql://svc:s3cret-read@127.0.0.1:${await freePort()}/svc`
      const started = startServer({ ...quiet, database: { ...db.database, readUrl } }, listen)
      await expect(started).rejects.toThrow(
        /database\.readUrl: cannot connect to the MySQL read server \(.*ECONNREFUSED/
      )
      await started.catch((error: unknown) => expect(String(error)).not.toContain("s3cret-read"))
    } finally {
      await db.drop()
    }
  })
})

/**
 * A real primary and streaming standby: the read URL lists the primary first with
 * `prefer-standby`, so libpq's second pass must pick the standby. With the standby's replay
 * paused, a new save is on the primary (its subject read answers) but not in the export or the
 * insight page until replay resumes.
 */
describeWith(optionalServers.postgresBinaries, "database.readUrl on a streaming standby", (pgBin) => {
  let nodes: PgReplicas
  let server: RunningServer
  const domain = `standby-${unique()}.example`
  beforeAll(async () => {
    nodes = await startPgReplicas(pgBin)
    server = await startServer({
      ...quiet,
      database: {
        dialect: "postgres",
        url: nodes.url([nodes.primary], "target_session_attrs=read-write"),
        readUrl: nodes.url([nodes.primary, nodes.standby], "target_session_attrs=prefer-standby")
      }
    }, listen)
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await nodes?.stop()
  })

  const replayed = async (subjectId: string) => {
    const deadline = Date.now() + 15_000
    while (Date.now() < deadline) {
      const rows = await nodes.standby.query(`SELECT 1 FROM svc_consents WHERE subject_id = '${subjectId}'`)
        .catch(() => [])
      if (rows.length > 0) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`${subjectId} never reached the standby`)
  }

  it(
    "exports and insight read the standby (lagging while its replay is paused); saves and subject reads the primary",
    async () => {
      const first = String((await postCookieSave(server.url, { domain })).body["subjectId"])
      await replayed(first)
      expect(await exportedSubjects(server.url, `domain=${domain}`)).toEqual([first])

      await nodes.standby.query("SELECT pg_wal_replay_pause()")
      const second = await postCookieSave(server.url, cookieSave({ domain }))
      expect(second.status).toBe(200)
      const secondId = String(second.body["subjectId"])
      expect((await fetch(`${server.url}/subjects/${secondId}`)).status).toBe(200)
      expect(await nodes.primary.query(`SELECT 1 FROM svc_consents WHERE subject_id = '${secondId}'`)).toHaveLength(1)
      expect(await exportedSubjects(server.url, `domain=${domain}`)).toEqual([first])
      expect(await insightTotal(server.url, domain)).toBe(1)

      await nodes.standby.query("SELECT pg_wal_replay_resume()")
      await replayed(secondId)
      expect((await exportedSubjects(server.url, `domain=${domain}`)).sort()).toEqual([first, secondId].sort())
      expect(await insightTotal(server.url, domain)).toBe(2)
    },
    60_000
  )

  it("the read pool's connections are on the standby, and none of svc's writes reached it", async () => {
    const onStandby = await nodes.standby.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'svc' AND backend_type = 'client backend'"
    )
    expect(Number(onStandby[0]?.["n"])).toBeGreaterThan(0)
    // A standby refuses every write: saves that all succeeded went to the primary.
    const saved = await Promise.all([1, 2, 3].map(() => postCookieSave(server.url, { domain })))
    expect(saved.map((answer) => answer.status)).toEqual([200, 200, 200])
  })

  it("prefer-standby reads the primary while no standby answers, and moves to one once it does", async () => {
    // The standby is reached through a proxy that is down when svc starts.
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: nodes.standby.port })
    await proxy.stop()
    const fallback = `fallback-${unique()}.example`
    const second = await startServer({
      ...quiet,
      database: {
        dialect: "postgres",
        url: nodes.url([nodes.primary], "target_session_attrs=read-write"),
        readUrl: `postgres://postgres@127.0.0.1:${nodes.primary.port},127.0.0.1:${proxy.port()}/svc` +
          "?target_session_attrs=prefer-standby"
      }
    }, listen)
    try {
      const first = String((await postCookieSave(second.url, { domain: fallback })).body["subjectId"])
      await replayed(first)
      await nodes.standby.query("SELECT pg_wal_replay_pause()")
      const later = String((await postCookieSave(second.url, { domain: fallback })).body["subjectId"])
      // On the fallback (the primary) the export sees the save the paused standby has not replayed.
      expect((await exportedSubjects(second.url, `domain=${fallback}`)).sort()).toEqual([first, later].sort())

      await proxy.start()
      const deadline = Date.now() + 10_000
      let seen = await exportedSubjects(second.url, `domain=${fallback}`)
      while (seen.length !== 1 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        seen = await exportedSubjects(second.url, `domain=${fallback}`)
      }
      expect(seen).toEqual([first])
    } finally {
      await nodes.standby.query("SELECT pg_wal_replay_resume()")
      await second.close()
      await proxy.stop()
    }
  }, 60_000)
})
