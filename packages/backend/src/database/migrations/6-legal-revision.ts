import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"

/**
 * A per-type publish counter on legal document releases, so "the latest publish is current" has
 * one answer even for two publishes in the same millisecond. Rows published before it are numbered
 * in publish order.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE svc_legal_documents ADD COLUMN revision BIGINT NOT NULL DEFAULT 0`
  const rows = yield* sql`SELECT id, tenant_id, type FROM svc_legal_documents ORDER BY created_at, id`
  const decoded = Schema.decodeUnknownSync(
    Schema.Array(Schema.Struct({ id: Schema.String, tenant_id: Schema.String, type: Schema.String }))
  )(rows)
  const counters = new Map<string, number>()
  for (const row of decoded) {
    const key = `${row.tenant_id}\u0000${row.type}`
    const next = (counters.get(key) ?? 0) + 1
    counters.set(key, next)
    yield* sql`UPDATE svc_legal_documents SET revision = ${next} WHERE id = ${row.id}`
  }
})
