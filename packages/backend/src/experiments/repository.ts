import { SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ReadSqlClient } from "../database/read-client.js"
import { SqlNumber } from "../database/columns.js"
import type { SummaryWindow } from "../period/window.js"

/** What one summary reads: an experiment of a tenant (`''` in single-tenant scope) in a window. */
export const SummaryScope = Schema.Struct({
  tenantId: Schema.String,
  experimentId: Schema.String,
  fromMs: Schema.NullOr(Schema.Number),
  toMs: Schema.NullOr(Schema.Number),
  domain: Schema.NullOr(Schema.String)
})
export type SummaryScope = typeof SummaryScope.Type & SummaryWindow

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
 * saves, each answered from its own index of migration 5. Only `cookie_banner` saves that carry
 * the experiment count.
 */
export class ExperimentsRepo extends Effect.Service<ExperimentsRepo>()("@svc/backend/ExperimentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* ReadSqlClient

    const where = (scope: SummaryScope) =>
      sql.and([
        // Exact on every dialect: MySQL's text columns are binary-collated (migration 8).
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

    // Postgres sums a bigint COUNT as numeric, several times slower in the windows below than the
    // bigint sum of an integer; MySQL has no CAST to INTEGER (and sums as DECIMAL either way).
    const perValueCount = sql.literal(
      sql.onDialectOrElse({ mysql: () => "COUNT(*)", orElse: () => "CAST(COUNT(*) AS INTEGER)" })
    )

    /**
     * Exact median of `time_to_decision_ms` per arm over saves that sent it. Saves are first
     * counted per distinct value (`c`); a running total over the values in order (`upto`) then
     * tells which value holds which ranks: a value holds ranks `upto - c + 1 .. upto`. The median
     * ranks of `n` values are the r with n <= 2r <= n + 2 (one rank for odd n, the two middle ones
     * for even n); a value holds one of them when 2(upto - c) <= n and 2 upto >= n. The average
     * of the one or two values holding them is the median. Grouping first keeps the window small
     * (one row per distinct time, not per save) and lets the grouping follow the index order; both
     * windows share one ordering so the engine sorts once.
     */
    const armMedians = SqlSchema.findAll({
      Request: SummaryScope,
      Result: ArmMedianRow,
      execute: (scope) =>
        sql`SELECT arm, AVG(t) AS median FROM (
            SELECT arm, t, c,
              SUM(c) OVER (PARTITION BY arm ORDER BY t ROWS UNBOUNDED PRECEDING) AS upto,
              SUM(c) OVER (PARTITION BY arm ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n
            FROM (
              SELECT experiment_arm AS arm, time_to_decision_ms AS t, ${perValueCount} AS c
              FROM svc_consents
              WHERE ${where(scope)} AND time_to_decision_ms IS NOT NULL
              GROUP BY experiment_arm, time_to_decision_ms
            ) per_value
          ) running
          WHERE 2 * (upto - c) <= n AND 2 * upto >= n
          GROUP BY arm`
    })

    return { armCounts, armMedians } as const
  })
}) {}
