import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The index behind the insight page's one aggregate query (`insight/repository.ts`): a tenant's
 * records by UTC day (`given_at / 86400000`, the expression the query groups and bounds by), then
 * action, rule and experiment, so the grouping follows index order (no sort) and every column the
 * query reads is in it (no table row is read). `type` comes after the grouping columns on purpose:
 * leading with `(tenant_id, type)` made SQLite pick this index for the period export's
 * `ORDER BY given_at, id` and sort. MySQL/MariaDB is left out: MariaDB has no expression indexes,
 * and the key limit (3072 bytes) cannot hold domain and the GPC proof, so there the query reads
 * `svc_consents_time` and the rows as before.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    mysql: () => Effect.void,
    orElse: () =>
      sql`CREATE INDEX svc_consents_insight ON svc_consents
        (tenant_id, (given_at / 86400000), action, policy_id, experiment_id, type, domain, gpc, given_at)`
  })
})
