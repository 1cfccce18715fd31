import { SqlClient } from "@effect/sql"
import { Context, Layer } from "effect"
import type { ResolvedConfig } from "../config/resolved.js"
import { urlClientLayer } from "./client.js"

/**
 * The `SqlClient` that reads which may lag behind the primary go through: period exports
 * (`ConsentExports`, `GET /consents/export`), the insight page and experiment summaries. It is
 * the primary's own `SqlClient` unless `database.readUrl` (or `database.readLayer`) names a
 * standby. Nothing writes through it, and nothing a client reads back after writing (subject
 * reads, identity, saves) uses it.
 *
 * @example
 * ```ts
 * import { ReadSqlClient, readSqlClientLayer, resolveOptions, sqlClientLayer } from "@svc/backend"
 * import { Effect, Layer } from "effect"
 *
 * // A reporting job counts last month's decisions on the standby svc reads its exports from.
 * const { database } = resolveOptions({
 *   database: { dialect: "postgres", url: process.env.DATABASE_URL!, readUrl: process.env.DATABASE_READ_URL! }
 * })
 * const decisions = Effect.flatMap(ReadSqlClient, (sql) =>
 *   sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM svc_consents WHERE given_at >= ${Date.now() - 2_592_000_000}`
 * ).pipe(Effect.provide(readSqlClientLayer(database).pipe(Layer.provide(sqlClientLayer(database)))))
 * ```
 */
export class ReadSqlClient extends Context.Tag("@svc/backend/ReadSqlClient")<ReadSqlClient, SqlClient.SqlClient>() {}

/**
 * `ReadSqlClient` for the configured database: a second pool on `readUrl` (or the `readLayer`
 * given), else the primary's `SqlClient`, which this layer then needs.
 *
 * @example
 * ```ts
 * import { SqlClient } from "@effect/sql"
 * import { ReadSqlClient, readSqlClientLayer, resolveOptions, sqlClientLayer } from "@svc/backend"
 * import { Effect, Layer } from "effect"
 *
 * // Without readUrl the reads share the primary's pool: ReadSqlClient is the SqlClient itself.
 * const { database } = resolveOptions({ database: { dialect: "sqlite", url: "./svc.db" } })
 * const shared = Effect.gen(function*() {
 *   return (yield* ReadSqlClient) === (yield* SqlClient.SqlClient)
 * }).pipe(Effect.provide(readSqlClientLayer(database).pipe(Layer.provideMerge(sqlClientLayer(database)))))
 * ```
 */
export const readSqlClientLayer = (
  database: ResolvedConfig["database"]
): Layer.Layer<ReadSqlClient, unknown, SqlClient.SqlClient> => {
  const read = database._tag === "Layer"
    ? database.readLayer
    : database.readUrl === undefined
    ? undefined
    : urlClientLayer(database.dialect, database.readUrl, database.schema, "read", database.maxConnections)
  const fromSqlClient = Layer.effect(ReadSqlClient, SqlClient.SqlClient)
  return read === undefined ? fromSqlClient : fromSqlClient.pipe(Layer.provide(read))
}
