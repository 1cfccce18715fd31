import type { SqlClient } from "@effect/sql"
import { Effect, Layer, Redacted } from "effect"
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
export const sqlClientLayer = (database: ResolvedConfig["database"]): Layer.Layer<SqlClient.SqlClient, unknown> => {
  if (database._tag === "Layer") return database.layer
  const { dialect, url, schema } = database
  return Layer.unwrapEffect(Effect.promise(async (): Promise<Layer.Layer<SqlClient.SqlClient, unknown>> => {
    switch (dialect) {
      case "sqlite": {
        const { sqliteClientLayer } = await import("./sqlite-client.js")
        return sqliteClientLayer(url)
      }
      case "postgres": {
        // A libpq URL, several hosts and `target_session_attrs` included (config/pg-url.ts); the config
        // check has already refused one that does not read.
        const [{ pgClientLayer }, { parsePgUrl, withSchema }] = await Promise.all([
          import("./pg-client.js"),
          import("../config/pg-url.js")
        ])
        const target = parsePgUrl(url)
        if (typeof target === "string") return Layer.fail(new Error(`database.url: ${target}`))
        return pgClientLayer(withSchema(target, schema))
      }
      case "mysql": {
        const { MysqlClient } = await import("@effect/sql-mysql2")
        return MysqlClient.layer({ url: Redacted.make(url), maxConnections: 10 })
      }
    }
  }))
}
