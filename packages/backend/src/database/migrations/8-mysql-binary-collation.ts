import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * MySQL/MariaDB only: compare identifiers byte for byte. Their default collations ignore case, so
 * tenant `acme` would read `ACME`'s rows and `sub_aB…` would collide with `sub_Ab…`. Every text
 * column of svc's tables becomes `utf8mb4_bin`; Postgres and SQLite already compare exactly.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    mysql: () =>
      Effect.forEach(
        ["svc_subjects", "svc_consents", "svc_legal_documents"],
        (table) => sql`ALTER TABLE ${sql(table)} CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`,
        { discard: true }
      ),
    orElse: () => Effect.void
  })
})
