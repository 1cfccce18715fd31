import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The visitor's country when the save was made (ISO 3166-1 alpha-2, as /init reads it from the
 * edge's location headers), `NULL` when none was sent. Coarse, not personal: the insight page
 * groups by it, and erasure keeps it. The insight index (17) is rebuilt with `country` last, so the
 * page's per-country statement reads the index, not the period's rows (its other columns keep
 * their order: the plans migration 17 describes stay as they were).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE svc_consents ADD COLUMN country CHAR(2) NULL`
  yield* sql.onDialectOrElse({
    mysql: () => Effect.void,
    orElse: () =>
      Effect.zipRight(
        sql`DROP INDEX svc_consents_insight`,
        sql`CREATE INDEX svc_consents_insight ON svc_consents
          (tenant_id, (given_at / 86400000), action, policy_id, experiment_id, type, domain, gpc, given_at, country)`
      )
  })
})
