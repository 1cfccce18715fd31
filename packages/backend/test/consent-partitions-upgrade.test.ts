// Upgrading a PostgreSQL database made by migrations 1-19 (one `svc_consents` table) with data:
// migration 20 moves the rows into the monthly partitions in place, and what was saved before is
// readable after, and idempotent: a replayed act answers the stored record and stores nothing.
import { Migrator } from "@effect/sql"
import { migrations, sqlClientLayer } from "@svc/backend"
import { type RunningServer, startServer } from "@svc/server"
import { Effect } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { allPreferences, call, cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { monthAfter, monthPartition, partitionNames, partitionOf } from "./support/consent-partitions.js"
import { type FreshDatabase, freshDatabase } from "./support/dialects.js"
import { optionalServers } from "./support/optional-servers.js"
import type { TestServer } from "./support/server.js"
import { describeWith } from "./support/server-suites.js"

const quiet = { observability: { requests: "none" as const } }
const DAY = 86_400_000
const now = Date.now()
const subjectId = newSubjectId()
/** Acts of one subject: this month, two months back, and years back (its month gets a partition too). */
const bodies = [now, now - 62 * DAY, Date.UTC(2019, 5, 15, 12)].map((givenAt) => cookieSave({ subjectId, givenAt }))

const asServer = (running: RunningServer, db: FreshDatabase): TestServer => ({
  url: () => running.url,
  db: () => db,
  client: Effect.die("not used"),
  clientWithKey: () => Effect.die("not used"),
  fetch: (path, init) => fetch(running.url + path, init)
})

const insert = (db: FreshDatabase, table: string, row: Record<string, unknown>) => {
  const names = Object.keys(row)
  return db.query(
    `INSERT INTO ${table} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
    Object.values(row)
  )
}

describeWith(optionalServers.postgres, "upgrading a PostgreSQL svc_consents made by migrations 1-19, with rows", () => {
  let db: FreshDatabase
  let running: RunningServer | undefined
  let server: TestServer
  let stored: Array<Record<string, unknown>>

  beforeAll(async () => {
    // The rows as the current writer makes them (on a scratch SQLite database), then stored in a
    // PostgreSQL database at migration 19's schema, whose svc_consents has every column they have.
    const scratch = await freshDatabase("sqlite")
    const writer = await startServer({ database: scratch.database, ...quiet }, { port: 0, host: "127.0.0.1" })
    try {
      for (const body of bodies) expect((await save(asServer(writer, scratch), body)).status).toBe(200)
      stored = await scratch.query("SELECT * FROM svc_consents ORDER BY given_at")
      const subjects = await scratch.query("SELECT * FROM svc_subjects")
      db = await freshDatabase("postgres")
      await db.query(`CREATE SCHEMA IF NOT EXISTS ${db.database.schema}`)
      await Effect.runPromise(
        Migrator.make({})({
          loader: Effect.succeed(
            migrations.filter(([id]) => id <= 19).map(([id, name, run]) => [id, name, Effect.succeed(run)] as const)
          ),
          table: "svc_migrations"
        }).pipe(Effect.provide(sqlClientLayer({ _tag: "Url", ...db.database, schema: db.database.schema })))
      )
      for (const subject of subjects) await insert(db, "svc_subjects", subject)
      for (const consent of stored) await insert(db, "svc_consents", consent)
    } finally {
      await writer.close()
      await scratch.drop()
    }
    running = await startServer({ database: db.database, ...quiet }, { port: 0, host: "127.0.0.1" })
    server = asServer(running, db)
  }, 120_000)

  afterAll(async () => {
    await running?.close()
    await db?.drop()
  })

  it("makes svc_consents a partitioned table with a partition per month that has rows, three ahead and a default", async () => {
    const [kind] = await db.query("SELECT relkind FROM pg_class WHERE oid = to_regclass('svc_consents')")
    expect(kind?.relkind).toBe("p")
    const names = await partitionNames(db)
    const expected = [
      ...bodies.map((body) => monthPartition(body.givenAt as number)),
      monthPartition(monthAfter(now, 1)),
      monthPartition(monthAfter(now, 2)),
      "svc_consents_default"
    ]
    for (const name of expected) expect(names).toContain(name)
    expect(names).toHaveLength(new Set(expected).size)
    for (const row of stored) expect(await partitionOf(db, row.id)).toBe(monthPartition(Number(row.given_at)))
  })

  it("keeps every row and column as it was", async () => {
    const after = await db.query("SELECT * FROM svc_consents ORDER BY given_at")
    expect(after.map((row) => [row.id, row.act_key, Number(row.given_at), row.receipts, row.log_commitment])).toEqual(
      stored.map((row) => [row.id, row.act_key, Number(row.given_at), row.receipts, row.log_commitment])
    )
  })

  it("reads the acts saved before through the API", async () => {
    const view = await call(server, "GET", `/subjects/${subjectId}`)
    expect(view.status, JSON.stringify(view.body)).toBe(200)
    expect((view.body.consents as Array<{ givenAt: string }>).map((c) => Date.parse(c.givenAt))).toEqual(
      stored.map((row) => Number(row.given_at))
    )
  })

  it("answers a replay of an act saved before with the stored record, and stores nothing", async () => {
    for (const body of bodies) {
      const replay = await save(server, body)
      expect(replay.status, JSON.stringify(replay.body)).toBe(200)
      const original = stored.find((row) => Number(row.given_at) === body.givenAt)
      expect(replay.body.consentId).toBe(original?.id)
    }
    const conflicting = await save(server, { ...bodies[1], preferences: allPreferences(false) })
    expect(conflicting.status, JSON.stringify(conflicting.body)).toBe(409)
    const [count] = await db.query("SELECT COUNT(*) AS n FROM svc_consents")
    expect(Number(count?.n)).toBe(bodies.length)
  })

  it("refuses a second row for an act in the database itself: the unique act key holds across partitions", async () => {
    const [twin] = await db.query("SELECT * FROM svc_consents WHERE given_at = ?", [bodies[1]!.givenAt])
    await expect(insert(db, "svc_consents", { ...twin, id: "cns_twin_of_an_act_0000000000" })).rejects.toThrow(
      /svc_consents_\d{4}_\d{2}_act_key_given_at_idx|duplicate key/
    )
    const keys = await db.query(
      "SELECT pg_get_indexdef(i.indexrelid) AS def, i.indisprimary AS pk FROM pg_index i WHERE i.indrelid = to_regclass('svc_consents') AND i.indisunique ORDER BY 2"
    )
    expect(keys.map((k) => String(k.def).replace(/^.* USING btree /, ""))).toEqual([
      "(act_key, given_at)",
      "(id, given_at)"
    ])
  })
})
