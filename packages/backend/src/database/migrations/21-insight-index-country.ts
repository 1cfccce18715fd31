import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The insight index (17, 18) with `country` moved up beside the other grouping columns: the
 * insight page's one statement groups a period's decisions by UTC day, action, rule, experiment
 * and country, which now follow index order, so the cells come out of one range of the index
 * without a sort (before, the per-country totals were a second statement that read the period
 * again). The same columns as before, so the index is as large and a save writes the same. MySQL
 * has no insight index (17).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    mysql: () => Effect.void,
    orElse: () =>
      Effect.zipRight(
        sql`DROP INDEX svc_consents_insight`,
        sql`CREATE INDEX svc_consents_insight ON svc_consents
          (tenant_id, (given_at / 86400000), action, policy_id, experiment_id, country, type, domain, gpc, given_at)`
      )
  })
})
