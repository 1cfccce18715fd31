import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { SummaryWindow } from "./window.js"

/** What one summary reads: an experiment of a tenant (`''` in single-tenant scope) in a window. */
export const SummaryScope = Schema.Struct({
  tenantId: Schema.String,
  experimentId: Schema.String,
  fromMs: Schema.NullOr(Schema.Number),
  toMs: Schema.NullOr(Schema.Number),
  domain: Schema.NullOr(Schema.String)
})
export type SummaryScope = typeof SummaryScope.Type & SummaryWindow

// Counts and averages arrive as numbers (SQLite), strings (Postgres COUNT/AVG, MySQL AVG) or bigints.
const SqlNumber = Schema.Union(Schema.Number, Schema.NumberFromString, Schema.BigIntFromSelf.pipe(
  Schema.transform(Schema.Number, { strict: true, decode: (n) => Number(n), encode: (n) => BigInt(n) })
))

const ArmCountRow = Schema.Struct({
  arm: Schema.String,
  action: Schema.NullOr(Schema.String),
  surface: Schema.NullOr(Schema.String),
  choices: SqlNumber
})
export type ArmCountRow = typeof ArmCountRow.Type

const ArmMedianRow = Schema.Struct({ arm: Schema.String, median: SqlNumber })
export type ArmMedianRow = typeof ArmMedianRow.Type

/**
 * The SQL behind experiment summaries: two aggregate queries per summary, whatever the number of
 * saves. Only `cookie_banner` saves that carry the experiment count. Served by the index of
 * migration 5, which starts with the equality columns and then orders by arm and time to decision,
 * so the median's window needs no sort.
 */
export class ExperimentRepo extends Effect.Service<ExperimentRepo>()("@svc/backend/ExperimentRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const where = (scope: SummaryScope) =>
      sql.and([
        sql`tenant_id = ${scope.tenantId}`,
        sql`experiment_id = ${scope.experimentId}`,
        sql`type = ${"cookie_banner"}`,
        sql`experiment_arm IS NOT NULL`,
        ...(scope.fromMs === null ? [] : [sql`given_at >= ${scope.fromMs}`]),
        ...(scope.toMs === null ? [] : [sql`given_at <= ${scope.toMs}`]),
        ...(scope.domain === null ? [] : [sql`domain = ${scope.domain}`])
      ])

    /** Saves per arm, action and surface (a few dozen rows at most). */
    const armCounts = SqlSchema.findAll({
      Request: SummaryScope,
      Result: ArmCountRow,
      execute: (scope) =>
        sql`SELECT experiment_arm AS arm, action, surface, COUNT(*) AS choices
          FROM svc_consents
          WHERE ${where(scope)}
          GROUP BY experiment_arm, action, surface`
    })

    /**
     * Exact median of `time_to_decision_ms` per arm over saves that sent it. With the values of an
     * arm ranked 1..n, the middle ranks are the r with n <= 2r <= n + 2: one rank for odd n,
     * the two middle ones for even n, whose average is the median.
     */
    const armMedians = SqlSchema.findAll({
      Request: SummaryScope,
      Result: ArmMedianRow,
      execute: (scope) =>
        sql`SELECT arm, AVG(t) AS median FROM (
            SELECT experiment_arm AS arm, time_to_decision_ms AS t,
              ROW_NUMBER() OVER (PARTITION BY experiment_arm ORDER BY time_to_decision_ms) AS r,
              COUNT(*) OVER (PARTITION BY experiment_arm) AS n
            FROM svc_consents
            WHERE ${where(scope)} AND time_to_decision_ms IS NOT NULL
          ) ranked
          WHERE r * 2 BETWEEN n AND n + 2
          GROUP BY arm`
    })

    return { armCounts, armMedians } as const
  })
}) {}
