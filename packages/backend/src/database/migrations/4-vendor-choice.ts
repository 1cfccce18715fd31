import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The stored vendor-choice column: the grant map and its confirmation time, as sent (JSON). */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE svc_consents ADD COLUMN vendor_choice TEXT NULL`
})
