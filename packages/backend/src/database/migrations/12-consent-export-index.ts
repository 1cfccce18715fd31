import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The index behind `GET /consents/export` and the retention job: a tenant's records in time order,
 * read in keyset pages (`given_at`, then `id`), so each page is an index range however large the table.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX svc_consents_time ON svc_consents (tenant_id, given_at, id)`
})
