import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Secrets svc generates for itself, one row per name, written once (the first writer wins on every
 * replica): the erasure key (`erasure-hmac`) when the config sets none.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const collation = sql.literal(
    sql.onDialectOrElse({ mysql: () => " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", orElse: () => "" })
  )
  yield* sql`CREATE TABLE svc_secrets (
    name VARCHAR(64) NOT NULL PRIMARY KEY,
    value VARCHAR(255) NOT NULL,
    created_at BIGINT NOT NULL
  )${collation}`
})
