import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Global Privacy Control proof of a consent: `NULL` when no signal applied, else JSON
 * `{ denied, overridden }`: the categories the rule's `gpcDenies` denied, and those of them the
 * act had claimed as granted (stored as denied).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE svc_consents ADD COLUMN gpc TEXT NULL`
})
