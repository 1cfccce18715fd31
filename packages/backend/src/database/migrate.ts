import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ResolvedConfig } from "../config/resolved.js"
import { runMigrations } from "./migrations/index.js"

/** Creates the Postgres schema when one is configured, then applies pending migrations. */
export const migrateDatabase = (database: ResolvedConfig["database"]) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (database._tag === "Url" && database.dialect === "postgres" && database.schema !== undefined) {
      yield* sql`CREATE SCHEMA IF NOT EXISTS ${sql(database.schema)}`
    }
    return yield* runMigrations
  })
