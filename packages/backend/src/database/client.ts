import { SqlClient } from "@effect/sql"
import { MysqlClient } from "@effect/sql-mysql2"
import { PgClient } from "@effect/sql-pg"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Layer, Redacted } from "effect"
import type { ResolvedConfig } from "../config/resolved.js"

/** Postgres only: put svc's tables in `schema` by setting the connection's search_path. */
const withSearchPath = (url: string, schema: string): string => {
  const parsed = new URL(url)
  parsed.searchParams.set("options", `-c search_path=${schema}`)
  return parsed.toString()
}

/**
 * The `SqlClient` layer for the configured database: one of the three drivers, or the host
 * application's own layer. Column names are used as written (snake_case) on every dialect.
 */
export const sqlClientLayer = (database: ResolvedConfig["database"]): Layer.Layer<SqlClient.SqlClient, unknown> => {
  if (database._tag === "Layer") return database.layer
  switch (database.dialect) {
    case "sqlite":
      return SqliteClient.layer({ filename: database.url })
    case "postgres": {
      const url = database.schema === undefined ? database.url : withSearchPath(database.url, database.schema)
      return PgClient.layer({ url: Redacted.make(url), transformJson: false, maxConnections: 10 })
    }
    case "mysql":
      return MysqlClient.layer({ url: Redacted.make(database.url), maxConnections: 10 })
  }
}
