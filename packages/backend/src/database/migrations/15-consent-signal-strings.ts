import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The IAB strings a save carried: the GPP string and its section ids (`2,7`), and the TCF v2 TC
 * string; `NULL` when the save had none.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE svc_consents ADD COLUMN gpp_string TEXT NULL`
  yield* sql`ALTER TABLE svc_consents ADD COLUMN gpp_section_ids VARCHAR(255) NULL`
  yield* sql`ALTER TABLE svc_consents ADD COLUMN tc_string TEXT NULL`
})
