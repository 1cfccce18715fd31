import type { SqlClient } from "@effect/sql"
import { Effect, Layer, Redacted } from "effect"
import type { ResolvedConfig } from "../config/resolved.js"

/** Postgres only: put svc's tables in `schema` by setting the connection's search_path. */
const withSearchPath = (url: string, schema: string): string => {
  const parsed = new URL(url)
  parsed.searchParams.set("options", `-c search_path=${schema}`)
  return parsed.toString()
}

/**
 * The `SqlClient` layer for the configured database: one of the three drivers, or the host
 * application's own layer. Only the configured driver is loaded (each weighs tens of MB).
 * Column names are used as written (snake_case) on every dialect.
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
        const { PgClient } = await import("@effect/sql-pg")
        const withSchema = schema === undefined ? url : withSearchPath(url, schema)
        return PgClient.layer({ url: Redacted.make(withSchema), transformJson: false, maxConnections: 10 })
      }
      case "mysql": {
        const { MysqlClient } = await import("@effect/sql-mysql2")
        return MysqlClient.layer({ url: Redacted.make(url), maxConnections: 10 })
      }
    }
  }))
}
