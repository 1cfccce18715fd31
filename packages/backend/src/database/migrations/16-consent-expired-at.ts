import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * When the retention job found a cookie-banner choice past its rule's `validityDays` (epoch
 * milliseconds), `NULL` while it is valid. `/consents/check` skips expired choices.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE svc_consents ADD COLUMN expired_at BIGINT NULL`
})
