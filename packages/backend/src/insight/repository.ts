import { SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ReadSqlClient } from "../database/read-client.js"
import { SqlNumber } from "../database/columns.js"

/** One insight query: a tenant (`''` in single-tenant scope), a half-open period and maybe a domain. */
export const InsightScope = Schema.Struct({
  tenantId: Schema.String,
  fromMs: Schema.Number,
  toMs: Schema.Number,
  domain: Schema.NullOr(Schema.String)
})
export type InsightScope = typeof InsightScope.Type

/**
 * One row of the insight aggregate: decisions per UTC day and action (with how many carried a GPC
 * proof), per rule and action, or per experiment, told apart by `kind`.
 */
const TotalRow = Schema.Struct({
  kind: Schema.Literal("day", "rule", "experiment"),
  day: Schema.NullOr(SqlNumber),
  action: Schema.NullOr(Schema.String),
  name: Schema.NullOr(Schema.String),
  decisions: SqlNumber,
  withGpc: Schema.NullOr(SqlNumber)
})
export type TotalRow = typeof TotalRow.Type

/** Decisions per visitor country (`null`: none was known at save), and how many accepted all. */
const CountryRow = Schema.Struct({
  country: Schema.NullOr(Schema.String),
  decisions: SqlNumber,
  acceptAll: SqlNumber
})
export type CountryRow = typeof CountryRow.Type

const ReleaseRow = Schema.Struct({
  type: Schema.String,
  version: Schema.String,
  effectiveDate: SqlNumber,
  publishedAt: SqlNumber
})
export type ReleaseRow = typeof ReleaseRow.Type

const DAY_MS = 86_400_000

/**
 * The insight page's SQL. Its aggregates are one statement: a single pass over the
 * `svc_consents_insight` index of migration 17 (tenant, UTC day, action, rule, experiment, then the
 * filtered and counted columns) groups the period's decisions into cells in index order, without
 * sorting them or reading a table row; the per-day, per-rule and per-experiment totals are then
 * summed from those few cells. The period bounds the index range, so the cost follows the
 * period's rows, never the table's.
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

    const totals = SqlSchema.findAll({
      Request: InsightScope,
      Result: TotalRow,
      execute: (scope) =>
        sql`WITH cells AS (
            SELECT ${day} AS day, action, policy_id, experiment_id, COUNT(*) AS decisions,
              SUM(CASE WHEN gpc IS NULL THEN 0 ELSE 1 END) AS with_gpc
            FROM svc_consents WHERE ${where(scope)}
            GROUP BY ${day}, action, policy_id, experiment_id
          )
          SELECT 'day' AS kind, day, action, NULL AS name, SUM(decisions) AS decisions, SUM(with_gpc) AS ${
          sql("withGpc")
        }
            FROM cells GROUP BY day, action
          UNION ALL
          SELECT 'rule', NULL, action, policy_id, SUM(decisions), NULL FROM cells GROUP BY policy_id, action
          UNION ALL
          SELECT 'experiment', NULL, NULL, experiment_id, SUM(decisions), NULL FROM cells
            WHERE experiment_id IS NOT NULL GROUP BY experiment_id`
    })

    /**
     * The period's decisions per country: one grouped statement beside `totals`, over the same
     * period, read from the same index (migration 18 put `country` in it).
     */
    const countries = SqlSchema.findAll({
      Request: InsightScope,
      Result: CountryRow,
      execute: (scope) =>
        sql`SELECT country, COUNT(*) AS decisions,
            SUM(CASE WHEN action = ${"accept_all"} THEN 1 ELSE 0 END) AS ${sql("acceptAll")}
          FROM svc_consents WHERE ${where(scope)} GROUP BY country`
    })

    /** The latest legal-document publishes of the tenant (index `(tenant_id, type, created_at)`). */
    const latestReleases = SqlSchema.findAll({
      Request: Schema.String,
      Result: ReleaseRow,
      execute: (tenantId) =>
        sql`SELECT type, version, effective_date AS ${sql("effectiveDate")}, created_at AS ${sql("publishedAt")}
          FROM svc_legal_documents WHERE tenant_id = ${tenantId} ORDER BY created_at DESC, id LIMIT 8`
    })

    return { totals, countries, latestReleases } as const
  })
}) {}
