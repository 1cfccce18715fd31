import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The index behind `GET /experiments/:id/summary`: equality columns first (tenant, experiment,
 * type), then arm and time to decision, so the median's `ROW_NUMBER() OVER (PARTITION BY arm
 * ORDER BY time)` reads rows already in order, and the remaining filter and grouping columns so
 * both summary queries are answered from the index alone. MySQL caps an index key at 3072 bytes
 * (utf8mb4: 4 per character), so there the index stops after `given_at` and reads the rest from
 * the table.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    mysql: () =>
      sql`CREATE INDEX svc_consents_experiment_arm ON svc_consents
        (tenant_id, experiment_id, type, experiment_arm, time_to_decision_ms, given_at)`,
    orElse: () =>
      sql`CREATE INDEX svc_consents_experiment_arm ON svc_consents
        (tenant_id, experiment_id, type, experiment_arm, time_to_decision_ms, given_at, domain, action, surface)`
  })
})
