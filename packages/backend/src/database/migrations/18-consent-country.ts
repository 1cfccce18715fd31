import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The visitor's country when the save was made (ISO 3166-1 alpha-2, as /init reads it from the
 * edge's location headers), `NULL` when none was sent. Coarse, not personal: the insight page
 * groups by it, and erasure keeps it.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE svc_consents ADD COLUMN country CHAR(2) NULL`
})
