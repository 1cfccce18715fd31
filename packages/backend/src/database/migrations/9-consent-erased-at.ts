import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * When a consent record's subject was erased (epoch milliseconds), `NULL` while it was not. An erased
 * record is anonymous proof: its `subject_id` is a keyed hash of the erased id, its proof fields are gone.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE svc_consents ADD COLUMN erased_at BIGINT NULL`
})
