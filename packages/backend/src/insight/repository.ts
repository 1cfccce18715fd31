import { SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ReadSqlClient } from "../database/read-client.js"
import { SqlNumber } from "../database/columns.js"
import { findAll } from "../database/rows.js"

/** One insight query: a tenant (`''` in single-tenant scope), a half-open period and maybe a domain. */
export const InsightScope = Schema.Struct({
  tenantId: Schema.String,
  fromMs: Schema.Number,
  toMs: Schema.Number,
  domain: Schema.NullOr(Schema.String)
})
export type InsightScope = typeof InsightScope.Type

/**
 * One cell of the insight aggregate: the period's decisions of one UTC day, action, rule,
 * experiment and visitor country (`null` where none was recorded), and how many carried a GPC
 * proof. The page sums its totals per day, rule, experiment and country from these (cells.ts).
 */
const CellRow = Schema.Struct({
  day: SqlNumber,
  action: Schema.NullOr(Schema.String),
  policyId: Schema.NullOr(Schema.String),
  experimentId: Schema.NullOr(Schema.String),
  country: Schema.NullOr(Schema.String),
  decisions: SqlNumber,
  withGpc: SqlNumber
})
export type CellRow = typeof CellRow.Type

const ReleaseRow = Schema.Struct({
  type: Schema.String,
  version: Schema.String,
  effectiveDate: SqlNumber,
  publishedAt: SqlNumber
})
export type ReleaseRow = typeof ReleaseRow.Type

const DAY_MS = 86_400_000

/**
 * The insight page's SQL. Its aggregates are one statement, one pass over the period: on SQLite and
 * PostgreSQL a range of the `svc_consents_insight` index (migration 21: tenant, UTC day, action,
 * rule, experiment, country, then the filtered and counted columns), grouped into cells in index
 * order without sorting or reading a table row; on MySQL, which has no such index, one read of the
 * period's rows. The cells are few next to the rows (a day's decisions of one action, rule,
 * experiment and country); the page sums them per day, rule, experiment and country. The period
 * bounds the index range, so the cost follows the period's rows, never the table's.
 */
export class InsightRepo extends Effect.Service<InsightRepo>()("@svc/backend/InsightRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* ReadSqlClient

    // Whole UTC days since the epoch: integer division differs per dialect. The expression is the
    // index's own (written the same), so SQLite and Postgres bound and group by it from the index.
    const day = sql.literal(
      sql.onDialectOrElse({ mysql: () => `given_at DIV ${DAY_MS}`, orElse: () => `(given_at / ${DAY_MS})` })
    )

    // `from`/`to` are whole days: the day bounds use the index, the time bounds keep it exact.
    const where = (scope: InsightScope) =>
      sql.and([
        sql`tenant_id = ${scope.tenantId}`,
        sql`${day} >= ${Math.floor(scope.fromMs / DAY_MS)}`,
        sql`${day} < ${Math.ceil(scope.toMs / DAY_MS)}`,
        sql`given_at >= ${scope.fromMs}`,
        sql`given_at < ${scope.toMs}`,
        sql`type = ${"cookie_banner"}`,
        ...(scope.domain === null ? [] : [sql`domain = ${scope.domain}`])
      ])

    const cells = findAll({
      Request: InsightScope,
      Result: CellRow,
      execute: (scope) =>
        sql`SELECT ${day} AS day, action, policy_id AS ${sql("policyId")}, experiment_id AS ${
          sql("experimentId")
        }, country, COUNT(*) AS decisions, SUM(CASE WHEN gpc IS NULL THEN 0 ELSE 1 END) AS ${sql("withGpc")}
          FROM svc_consents WHERE ${where(scope)}
          GROUP BY ${day}, action, policy_id, experiment_id, country`
    })

    /** The latest legal-document publishes of the tenant (index `(tenant_id, type, created_at)`). */
    const latestReleases = SqlSchema.findAll({
      Request: Schema.String,
      Result: ReleaseRow,
      execute: (tenantId) =>
        sql`SELECT type, version, effective_date AS ${sql("effectiveDate")}, created_at AS ${sql("publishedAt")}
          FROM svc_legal_documents WHERE tenant_id = ${tenantId} ORDER BY created_at DESC, id LIMIT 8`
    })

    return { cells, latestReleases } as const
  })
}) {}
