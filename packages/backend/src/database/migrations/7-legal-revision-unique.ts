import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** One release per (tenant, type, revision): two racing publishes cannot both become current. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE UNIQUE INDEX svc_legal_documents_revision ON svc_legal_documents (tenant_id, type, revision)`
})
