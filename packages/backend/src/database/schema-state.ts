import { SqlClient } from "@effect/sql"
import { Cause, Effect } from "effect"
import { propertyOf } from "../codec/guards.js"
import { migrations } from "./migrations/index.js"

/** What the operator runs when the schema is missing or behind; every message about it says so. */
export const MIGRATE_HINT = "run `svc migrate` (or start with migrations on)"

/**
 * Whether a driver error says the schema is not there: a missing table or column (or Postgres
 * schema). That is a database nobody migrated, or migrated to an older version, not a transient
 * failure: retrying cannot help.
 */
export const isSchemaMissing = (error: unknown): boolean => {
  const cause = propertyOf(error, "cause") ?? error
  const code = propertyOf(cause, "code")
  const errno = propertyOf(cause, "errno")
  const message = propertyOf(cause, "message")
  // Postgres SQLSTATE: undefined_table, undefined_column, invalid_schema_name.
  if (code === "42P01" || code === "42703" || code === "3F000") return true
  // MySQL / MariaDB: ER_NO_SUCH_TABLE, ER_BAD_FIELD_ERROR.
  if (code === "ER_NO_SUCH_TABLE" || code === "ER_BAD_FIELD_ERROR" || errno === 1146 || errno === 1054) return true
  // SQLite has one code (SQLITE_ERROR) for every statement error; the message tells them apart.
  return typeof message === "string" && /^(no such (table|column)|table \S+ has no column named)/.test(message)
}

/**
 * The migrations this version ships that the database has not applied (`4-vendor-choice`), read
 * from `svc_migrations`. Fails with the driver's error when that table is missing.
 */
export const pendingMigrations = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<Record<string, unknown>>`SELECT migration_id FROM svc_migrations`
  // The first column whatever its name: a host's shared SqlClient may transform result names.
  const applied = new Set(rows.map((row) => Number(Object.values(row)[0])))
  return migrations.filter(([id]) => !applied.has(id)).map(([id, name]) => `${id}-${name}`)
})

/**
 * The schema next to the migrations this version ships: logged as an error at startup when
 * something is missing, so an instance started without migrations says so before its first request.
 * Never fails the startup (another replica or a deploy job may be migrating right now).
 */
export const reportSchemaState = Effect.gen(function*() {
  const pending = yield* pendingMigrations
  if (pending.length === migrations.length) {
    yield* Effect.logError(`The database schema is not migrated: ${MIGRATE_HINT}`)
  } else if (pending.length > 0) {
    yield* Effect.logError(
      `The database schema is ${pending.length} migration(s) behind (${pending.join(", ")}): ${MIGRATE_HINT}`
    )
  }
}).pipe(
  // Every cause, defects included (a host's own SqlClient layer may die): this is a report only.
  Effect.catchAllCause((cause) =>
    isSchemaMissing(Cause.squash(cause))
      ? Effect.logError(`The database schema is not migrated (no svc_migrations table): ${MIGRATE_HINT}`)
      : Effect.logWarning("Could not check the database schema", cause)
  )
)
