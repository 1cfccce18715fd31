// Upgrading a database that an older svc made: the schema as migrations 1-5 left it, with rows
// written the way that schema held them, then every later migration on start. The data survives,
// and what the later migrations promise holds for it: 6 numbers the releases already published in
// publish order (the latest is current), 7 refuses a second release with the same revision, and 8
// (MySQL/MariaDB) makes identifiers compare byte for byte. On every dialect.
import { Migrator } from "@effect/sql"
import { migrations, sqlClientLayer } from "@svc/backend"
import { type RunningServer, startServer } from "@svc/server"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bearer, call, cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { dialects, type FreshDatabase, freshDatabase } from "./support/dialects.js"
import type { TestServer } from "./support/server.js"

const API_KEY = "upgrade-key-0123456789abcdef-0123456"
const OLD_SCHEMA = 5
const quiet = { observability: { requests: "none" as const } }

/** The columns `svc_consents` had after migration 5 (2 and 4). */
const consentColumns = [
  "id",
  "tenant_id",
  "subject_id",
  "act_key",
  "act_digest",
  "type",
  "domain",
  "given_at",
  "created_at",
  "preferences",
  "receipts",
  "policy_id",
  "policy_fingerprint",
  "runtime_policy_source",
  "legal_release_id",
  "ip_address",
  "user_agent",
  "journey_id",
  "experiment_id",
  "experiment_arm",
  "action",
  "surface",
  "time_to_decision_ms",
  "vendor_choice"
] as const
const subjectColumns = ["id", "tenant_id", "external_id", "identity_provider", "verified", "created_at",
  "updated_at"] as const

/** Runs migrations 1..`upTo` only, recorded in `svc_migrations` as an older svc did. */
const migrateTo = (db: FreshDatabase, upTo: number) =>
  Effect.runPromise(
    Migrator.make({})({
      loader: Effect.succeed(
        migrations.filter(([id]) => id <= upTo).map(([id, name, run]) => [id, name, Effect.succeed(run)] as const)
      ),
      table: "svc_migrations"
    }).pipe(Effect.provide(sqlClientLayer({ _tag: "Url", ...db.database, schema: db.database.schema })))
  )

const insert = (db: FreshDatabase, table: string, row: Record<string, unknown>) => {
  const names = Object.keys(row)
  return db.query(
    `INSERT INTO ${table} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
    Object.values(row)
  )
}

const asServer = (running: RunningServer, db: FreshDatabase): TestServer => ({
  url: () => running.url,
  db: () => db,
  client: Effect.die("not used"),
  clientWithKey: () => Effect.die("not used"),
  fetch: (path, init) => fetch(running.url + path, init)
})

/** A subject and its consent as the current writer stores them, cut to the old schema's columns. */
let written: { subject: Record<string, unknown>; consent: Record<string, unknown> }
const subjectId = `sub_UpGrAdE${newSubjectId().slice(4)}`

beforeAll(async () => {
  const scratch = await freshDatabase("sqlite")
  const running = await startServer({ database: scratch.database, apiKeys: [API_KEY], ...quiet }, {
    port: 0,
    host: "127.0.0.1"
  })
  try {
    const saved = await save(
      asServer(running, scratch),
      cookieSave({ subjectId, externalSubjectId: "user-upgrade" }),
      bearer(API_KEY)
    )
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    const [subject] = await scratch.query("SELECT * FROM svc_subjects WHERE id = ?", [subjectId])
    const [consent] = await scratch.query("SELECT * FROM svc_consents WHERE subject_id = ?", [subjectId])
    const pick = (row: Record<string, unknown> | undefined, columns: ReadonlyArray<string>) =>
      Object.fromEntries(columns.map((column) => [column, row?.[column] ?? null]))
    written = { subject: pick(subject, subjectColumns), consent: pick(consent, consentColumns) }
  } finally {
    await running.close()
    await scratch.drop()
  }
}, 60_000)

describe.each(dialects)("upgrading a database made by migrations 1-5 [%s]", (dialect) => {
  let db: FreshDatabase
  let running: RunningServer | undefined
  let server: TestServer

  beforeAll(async () => {
    db = await freshDatabase(dialect)
    if (db.database.schema !== undefined) await db.query(`CREATE SCHEMA IF NOT EXISTS ${db.database.schema}`)
    await migrateTo(db, OLD_SCHEMA)
    // Releases as the old table held them: no revision column; publish order is created_at.
    const release = (id: string, type: string, version: string, createdAt: number) =>
      insert(db, "svc_legal_documents", {
        id,
        tenant_id: "",
        type,
        version,
        hash: `hash-${id}`,
        effective_date: Date.UTC(2026, 0, 1),
        created_at: createdAt
      })
    await release("pol_old_b", "privacy_policy", "2.0", 2_000)
    await release("pol_old_a", "privacy_policy", "1.0", 1_000)
    await release("pol_old_t", "terms_and_conditions", "7", 1_500)
    await insert(db, "svc_subjects", written.subject)
    await insert(db, "svc_consents", written.consent)
    running = await startServer({ database: db.database, apiKeys: [API_KEY], ...quiet }, { port: 0, host: "127.0.0.1" })
    server = asServer(running, db)
  }, 120_000)

  afterAll(async () => {
    await running?.close()
    await db?.drop()
  })

  it("applies every later migration once", async () => {
    const rows = await db.query("SELECT migration_id FROM svc_migrations ORDER BY migration_id")
    expect(rows.map((row) => Number(row.migration_id))).toEqual(migrations.map(([id]) => id))
  })

  it("6: numbers the old releases per type in publish order, and the latest stays current", async () => {
    const rows = await db.query("SELECT id, revision FROM svc_legal_documents ORDER BY id")
    expect(rows.map((row) => [row.id, Number(row.revision)])).toEqual([["pol_old_a", 1], ["pol_old_b", 2], ["pol_old_t",
      1]])
    const current = await call(server, "GET", "/legal-documents/privacy_policy/current")
    expect(current.status, JSON.stringify(current.body)).toBe(200)
    expect(current.body.policy.version).toBe("2.0")
    const list = await call(server, "GET", "/legal-documents/privacy_policy", undefined, bearer(API_KEY))
    expect(list.status).toBe(200)
    expect(JSON.stringify(list.body)).toContain("1.0")
    expect((await call(server, "GET", "/legal-documents/terms_and_conditions/current")).body.policy.version).toBe("7")
  })

  it("6 and 7: a publish after the upgrade gets the next revision and becomes current", async () => {
    const put = await call(server, "PUT", "/legal-documents/privacy_policy/current", {
      version: "3.0",
      hash: "hash-new",
      effectiveDate: "2026-02-01"
    }, bearer(API_KEY))
    expect(put.status, JSON.stringify(put.body)).toBe(200)
    const [row] = await db.query("SELECT revision FROM svc_legal_documents WHERE type = ? AND version = ?", [
      "privacy_policy",
      "3.0"
    ])
    expect(Number(row?.revision)).toBe(3)
    expect((await call(server, "GET", "/legal-documents/privacy_policy/current")).body.policy.version).toBe("3.0")
  })

  it("7: the store refuses a second release with a revision already taken", async () => {
    await expect(insert(db, "svc_legal_documents", {
      id: "pol_dup",
      tenant_id: "",
      type: "privacy_policy",
      version: "x",
      hash: "hash-dup",
      effective_date: 0,
      created_at: 3_000,
      revision: 2
    })).rejects.toThrow()
  })

  it("keeps the subject and consent written before the upgrade, readable through the API", async () => {
    const view = await call(server, "GET", `/subjects/${subjectId}`)
    expect(view.status, JSON.stringify(view.body)).toBe(200)
    expect(view.body.subject.externalId).toBe("user-upgrade")
    expect(JSON.stringify(view.body)).toContain("cookie_banner")
    const check = await call(
      server,
      "GET",
      "/consents/check?externalId=user-upgrade&type=cookie_banner",
      undefined,
      bearer(API_KEY)
    )
    expect(check.status).toBe(200)
    expect(check.body.results.cookie_banner.hasConsent).toBe(true)
  })

  it("8: identifiers written before the upgrade compare with their case", async () => {
    expect((await call(server, "GET", `/subjects/${subjectId.toLowerCase()}`)).status).toBe(404)
    const swapped = `sub_${subjectId.slice(4).toLowerCase()}`
    const second = await save(
      server,
      cookieSave({ subjectId: swapped, externalSubjectId: "user-lower" }),
      bearer(API_KEY)
    )
    expect(second.status, JSON.stringify(second.body)).toBe(200)
    expect((await call(server, "GET", `/subjects/${subjectId}`)).body.subject.externalId).toBe("user-upgrade")
    if (dialect === "mysql") {
      const columns = await db.query(
        "SELECT table_name AS t, column_name AS c, collation_name AS k FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name IN ('svc_subjects', 'svc_consents', 'svc_legal_documents') AND collation_name IS NOT NULL"
      )
      expect(columns.length).toBeGreaterThan(0)
      expect(columns.filter((column) => column.k !== "utf8mb4_bin")).toEqual([])
    }
  })
})

// README "Upgrading": during a rolling upgrade an older replica serves on the schema a newer one
// migrated. It runs none of the newer migrations it does not know, and additive changes (a new
// table, a new empty column) leave its reads and writes working.
describe.each(dialects)("a replica on a database a newer svc migrated [%s]", (dialect) => {
  let db: FreshDatabase
  afterAll(() => db?.drop())

  it("starts, applies nothing, and saves and reads as before", async () => {
    db = await freshDatabase(dialect)
    const first = await startServer({ database: db.database, ...quiet }, { port: 0, host: "127.0.0.1" })
    await first.close()
    const newer = migrations.length + 1
    await insert(db, "svc_migrations", {
      migration_id: newer,
      created_at: "2026-12-01 00:00:00",
      name: "from-a-newer-svc"
    })
    await db.query("CREATE TABLE svc_newer_feature (id VARCHAR(64) PRIMARY KEY)")
    await db.query("ALTER TABLE svc_consents ADD COLUMN newer_note TEXT NULL")
    const older = await startServer({ database: db.database, ...quiet }, { port: 0, host: "127.0.0.1" })
    try {
      const rows = await db.query("SELECT migration_id FROM svc_migrations ORDER BY migration_id")
      expect(rows.map((row) => Number(row.migration_id))).toEqual([...migrations.map(([id]) => id), newer])
      const subject = newSubjectId()
      const saved = await save(asServer(older, db), cookieSave({ subjectId: subject }))
      expect(saved.status, JSON.stringify(saved.body)).toBe(200)
      const read = await (await fetch(`${older.url}/subjects/${subject}`)).json() as { consents: Array<unknown> }
      expect(read.consents).toHaveLength(1)
    } finally {
      await older.close()
    }
  }, 120_000)
})
