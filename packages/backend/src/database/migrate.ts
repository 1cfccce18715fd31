import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ResolvedConfig } from "../config/resolved.js"
import { driverReason, MigrationFailed, runMigrations } from "./migrations/index.js"
import { isBusy, whileBusy } from "./sqlite-busy.js"

/** How long a replica waits for another one's migrations before giving up. */
const LOCK_WAIT_SECONDS = 600

/** A setup step that failed, said plainly with the driver's reason. */
const failedTo = (what: string) => (error: unknown) =>
  new MigrationFailed({ message: `Could not ${what}: ${driverReason(error)}` })

/**
 * The migrations table exactly as the Migrator creates it, made here (inside the lock) so that the
 * Migrator finds it: its own check-then-create races between replicas, and on Postgres its failed
 * check would abort the surrounding transaction.
 */
const createMigrationsTable = (sql: SqlClient.SqlClient) =>
  sql.onDialectOrElse({
    pg: () =>
      sql`CREATE TABLE IF NOT EXISTS svc_migrations (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`,
    orElse: () =>
      sql`CREATE TABLE IF NOT EXISTS svc_migrations (
        migration_id integer PRIMARY KEY NOT NULL,
        created_at datetime NOT NULL DEFAULT current_timestamp,
        name VARCHAR(255) NOT NULL
      )`
  }).pipe(Effect.mapError(failedTo("create the migrations table svc_migrations")))

/**
 * Postgres: one transaction holding a transaction-level advisory lock (keyed by the schema), so
 * the lock, `CREATE SCHEMA` and every migration run on one connection and the lock ends with it.
 * DDL is transactional here: a failed migration leaves nothing behind.
 */
const onPostgres = (sql: SqlClient.SqlClient, schema: string | undefined) =>
  sql.withTransaction(
    Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`svc_migrations:${schema ?? ""}`}))`.pipe(
        Effect.mapError(failedTo("take the migration lock (pg_advisory_xact_lock)"))
      )
      if (schema !== undefined) {
        yield* sql`CREATE SCHEMA IF NOT EXISTS ${sql(schema)}`.pipe(
          Effect.mapError(failedTo(`create the schema ${schema}`))
        )
      }
      yield* createMigrationsTable(sql)
      return yield* runMigrations
    })
  )

const MYSQL_LOCK_NAME = "LEFT(CONCAT('svc_migrations:', DATABASE()), 64)"

/**
 * MySQL: DDL commits implicitly, so no transaction can hold a lock across migrations; a named lock
 * (`GET_LOCK`, per database) is taken and released on one reserved connection, held while the
 * migrations run on the pool, and freed by the server if this process dies.
 */
const onMysql = (sql: SqlClient.SqlClient) =>
  Effect.scoped(
    Effect.gen(function*() {
      const connection = yield* sql.reserve.pipe(
        Effect.mapError(failedTo("reserve a connection for the migration lock"))
      )
      yield* Effect.acquireRelease(
        connection.execute(`SELECT GET_LOCK(${MYSQL_LOCK_NAME}, ?) AS acquired`, [LOCK_WAIT_SECONDS], undefined).pipe(
          Effect.mapError(failedTo("take the migration lock (GET_LOCK)")),
          Effect.filterOrFail(
            (rows) => Number(rows[0]?.acquired) === 1,
            () =>
              new MigrationFailed({
                message:
                  `Could not take the migration lock (GET_LOCK): another process held it for ${LOCK_WAIT_SECONDS} s`
              })
          )
        ),
        () => Effect.ignore(connection.execute(`SELECT RELEASE_LOCK(${MYSQL_LOCK_NAME})`, [], undefined))
      )
      yield* createMigrationsTable(sql)
      // The Migrator records every pending id before running any, and MySQL commits DDL at once:
      // unrecord the failed migration and those after it, so the next start runs it again (and
      // says why it fails) instead of serving a half-made schema.
      return yield* runMigrations.pipe(
        Effect.tapError((error) =>
          error._tag === "MigrationFailed" && error.migrationId !== undefined
            ? Effect.ignore(sql`DELETE FROM svc_migrations WHERE migration_id >= ${error.migrationId}`)
            : Effect.void
        )
      )
    })
  )

/**
 * SQLite: one write transaction. svc's client begins it IMMEDIATE; the first write below takes the
 * write lock whichever client runs it. A replica that finds the file locked waits (without
 * blocking the event loop) and then finds the migrations applied.
 */
const onSqlite = (sql: SqlClient.SqlClient) =>
  whileBusy(`${LOCK_WAIT_SECONDS} seconds`)(
    sql.withTransaction(
      Effect.gen(function*() {
        yield* createMigrationsTable(sql)
        yield* sql`DELETE FROM svc_migrations WHERE 0`
        return yield* runMigrations
      })
    )
  ).pipe(Effect.catchIf(isBusy, (error) => Effect.fail(failedTo("take the migration lock (SQLite write lock)")(error))))

/**
 * Applies pending migrations, safe for any number of replicas starting at once: each dialect
 * serialises them with a lock (see docs/adr/0023-migration-lock-and-rolling-upgrades.md). With a
 * Postgres `schema`, the schema is created first, under the same lock.
 *
 * @example
 * ```ts
 * import { migrateDatabase, resolveOptions, sqlClientLayer } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // What `svc migrate` does, from a deploy script: apply what is pending and say what it was.
 * const { database } = resolveOptions({ database: { dialect: "mysql", url: process.env.DATABASE_URL! } })
 * const applied = await Effect.runPromise(migrateDatabase(database).pipe(Effect.provide(sqlClientLayer(database))))
 * console.log(applied.length === 0 ? "up to date" : applied.map(([id, name]) => `${id}-${name}`).join(", "))
 * ```
 */
export const migrateDatabase = (database: ResolvedConfig["database"]) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const schema = database._tag === "Url" && database.dialect === "postgres" ? database.schema : undefined
    return yield* sql.onDialectOrElse({
      pg: () => onPostgres(sql, schema),
      mysql: () => onMysql(sql),
      sqlite: () => onSqlite(sql),
      orElse: () => runMigrations
    }).pipe(Effect.catchTag("SqlError", (error) => Effect.fail(failedTo("apply migrations")(error))))
  })
