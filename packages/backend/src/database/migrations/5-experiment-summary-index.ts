import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The two indexes behind `GET /experiments/:id/summary`, one per summary query. Both start with
 * the equality columns (tenant, experiment, type) and the arm; then `_choice` orders by action
 * and surface, so the per-arm counts group in index order, and `_time` orders by time to
 * decision, so the median's per-value counts do too. The window and domain columns follow, so
 * both queries read the index alone, never the table. MySQL caps an index key at 3072 bytes
 * (utf8mb4: 4 per character), so there the domain column is left out.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const domain = sql.literal(sql.onDialectOrElse({ mysql: () => "", orElse: () => ", domain" }))
  yield* sql`CREATE INDEX svc_consents_experiment_choice ON svc_consents
    (tenant_id, experiment_id, type, experiment_arm, action, surface, given_at${domain})`
  yield* sql`CREATE INDEX svc_consents_experiment_time ON svc_consents
    (tenant_id, experiment_id, type, experiment_arm, time_to_decision_ms, given_at${domain})`
})
