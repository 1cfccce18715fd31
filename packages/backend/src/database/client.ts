import type { SqlClient } from "@effect/sql"
import { Effect, Layer, Redacted } from "effect"
import type { SqlDialect } from "../config/options.js"
import type { ResolvedConfig } from "../config/resolved.js"

/**
 * The `SqlClient` layer for the configured database: one of the three drivers, or the host
 * application's own layer. Only the configured driver is loaded (each weighs tens of MB).
 * Column names are used as written (snake_case) on every dialect.
 *
 * @example
 * ```ts
 * import { SqlClient } from "@effect/sql"
 * import { resolveOptions, sqlClientLayer } from "@svc/backend"
 * import { Effect, Schedule } from "effect"
 *
 * // A deploy job waits until svc's database answers, with the same connection settings as svc.
 * const { database } = resolveOptions({ database: { dialect: "postgres", url: process.env.DATABASE_URL! } })
 * const databaseUp = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`).pipe(
 *   Effect.provide(sqlClientLayer(database)),
 *   Effect.retry(Schedule.spaced("2 seconds").pipe(Schedule.upTo("1 minute")))
 * )
 * ```
 */
export const sqlClientLayer = (database: ResolvedConfig["database"]): Layer.Layer<SqlClient.SqlClient, unknown> =>
  database._tag === "Layer"
    ? database.layer
    : urlClientLayer(database.dialect, database.url, database.schema, "primary", database.maxConnections)

/** How many connections a pool svc opens holds when `database.maxConnections` is not given. */
export const DEFAULT_MAX_CONNECTIONS = 10

/**
 * A pool for one URL of `dialect`, of at most `maxConnections` (SQLite: always one). `role:
 * "read"` is `database.readUrl`'s: on PostgreSQL it starts even when no host answers yet and keeps
 * looking (reads fail with 503 meanwhile); MySQL's driver checks its URL once at start, so a MySQL
 * read server must answer then.
 */
export const urlClientLayer = (
  dialect: SqlDialect,
  url: string,
  schema: string | undefined,
  role: "primary" | "read" = "primary",
  maxConnections = DEFAULT_MAX_CONNECTIONS
): Layer.Layer<SqlClient.SqlClient, unknown> =>
  Layer.unwrapEffect(Effect.promise(async (): Promise<Layer.Layer<SqlClient.SqlClient, unknown>> => {
    const option = role === "primary" ? "database.url" : "database.readUrl"
    switch (dialect) {
      case "sqlite": {
        const { sqliteClientLayer } = await import("./sqlite-client.js")
        return sqliteClientLayer(url)
      }
      case "postgres": {
        // A libpq URL, several hosts and `target_session_attrs` included (config/pg-url.ts); the config
        // check has already refused one that does not read.
        const [{ defaultPgPoolOptions, pgClientLayer }, { parsePgUrl, withSchema }] = await Promise.all([
          import("./pg-client.js"),
          import("../config/pg-url.js")
        ])
        const target = parsePgUrl(url)
        if (typeof target === "string") return Layer.fail(new Error(`${option}: ${target}`))
        const pool = { ...defaultPgPoolOptions, maxConnections }
        return pgClientLayer(
          withSchema(target, schema),
          role === "primary" ? pool : { ...pool, startWithoutServer: true, label: "read" }
        )
      }
      case "mysql": {
        const { MysqlClient } = await import("@effect/sql-mysql2")
        const layer = MysqlClient.layer({ url: Redacted.make(url), maxConnections })
        // The driver's reason (no URL in it); the server's startup message names the primary's location only.
        return role === "primary" ?
          layer :
          layer.pipe(Layer.mapError((error) =>
            new Error(
              `${option}: cannot connect to the MySQL read server (${
                "cause" in error && error.cause instanceof Error ? error.cause.message : String(error)
              })`
            )
          ))
      }
    }
  }))
