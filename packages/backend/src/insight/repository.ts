import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"

/** One insight query: a tenant (`''` in single-tenant scope), a half-open period and maybe a domain. */
export const InsightScope = Schema.Struct({
  tenantId: Schema.String,
  fromMs: Schema.Number,
  toMs: Schema.Number,
  domain: Schema.NullOr(Schema.String)
})
export type InsightScope = typeof InsightScope.Type

// Counts arrive as numbers (SQLite), strings (Postgres, MySQL sums) or bigints.
const SqlNumber = Schema.Union(Schema.Number, Schema.NumberFromString, Schema.BigIntFromSelf.pipe(
  Schema.transform(Schema.Number, { strict: true, decode: (n) => Number(n), encode: (n) => BigInt(n) })
))

const DayRow = Schema.Struct({ day: SqlNumber, action: Schema.NullOr(Schema.String), decisions: SqlNumber })
const RuleRow = Schema.Struct({ policy: Schema.NullOr(Schema.String), action: Schema.NullOr(Schema.String), decisions: SqlNumber })
const GpcRow = Schema.Struct({ decisions: SqlNumber, withGpc: Schema.NullOr(SqlNumber) })

const ExperimentRow = Schema.Struct({ experiment: Schema.String, decisions: SqlNumber })
const ReleaseRow = Schema.Struct({ type: Schema.String, version: Schema.String, effectiveDate: SqlNumber, publishedAt: SqlNumber })
export type ReleaseRow = typeof ReleaseRow.Type

export type DayRow = typeof DayRow.Type
export type RuleRow = typeof RuleRow.Type

const DAY_MS = 86_400_000

/**
 * The insight page's aggregates over cookie-banner decisions, each one GROUP BY over the
 * `(tenant_id, given_at, id)` index of migration 12: the period bounds the index range, so the cost
 * follows the period's rows, never the table's.
 */
export class InsightRepo extends Effect.Service<InsightRepo>()("@svc/backend/InsightRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const where = (scope: InsightScope) =>
      sql.and([
        sql`tenant_id = ${scope.tenantId}`,
        sql`given_at >= ${scope.fromMs}`,
        sql`given_at < ${scope.toMs}`,
        sql`type = ${"cookie_banner"}`,
        ...(scope.domain === null ? [] : [sql`domain = ${scope.domain}`])
      ])

    // Whole UTC days since the epoch: integer division differs per dialect.
    const day = sql.onDialectOrElse({
      mysql: () => sql.literal(`given_at DIV ${DAY_MS}`),
      pg: () => sql.literal(`given_at / ${DAY_MS}`),
      orElse: () => sql.literal(`given_at / ${DAY_MS}`)
    })

    const perDay = SqlSchema.findAll({
      Request: InsightScope,
      Result: DayRow,
      execute: (scope) =>
        sql`SELECT ${day} AS day, action, COUNT(*) AS decisions FROM svc_consents WHERE ${where(scope)} GROUP BY ${day}, action`
    })

    const perRule = SqlSchema.findAll({
      Request: InsightScope,
      Result: RuleRow,
      execute: (scope) =>
        sql`SELECT policy_id AS policy, action, COUNT(*) AS decisions FROM svc_consents WHERE ${where(scope)} GROUP BY policy_id, action`
    })

    const gpc = SqlSchema.findAll({
      Request: InsightScope,
      Result: GpcRow,
      execute: (scope) =>
        sql`SELECT COUNT(*) AS decisions, SUM(CASE WHEN gpc IS NULL THEN 0 ELSE 1 END) AS ${sql("withGpc")}
          FROM svc_consents WHERE ${where(scope)}`
    })

    /** The experiments with the most decisions in the period (their summaries are read one by one). */
    const experiments = SqlSchema.findAll({
      Request: InsightScope,
      Result: ExperimentRow,
      execute: (scope) =>
        sql`SELECT experiment_id AS experiment, COUNT(*) AS decisions FROM svc_consents
          WHERE ${where(scope)} AND experiment_id IS NOT NULL
          GROUP BY experiment_id ORDER BY COUNT(*) DESC, experiment_id LIMIT 5`
    })

    /** The latest legal-document publishes of the tenant (index `(tenant_id, type, created_at)`). */
    const latestReleases = SqlSchema.findAll({
      Request: Schema.String,
      Result: ReleaseRow,
      execute: (tenantId) =>
        sql`SELECT type, version, effective_date AS ${sql("effectiveDate")}, created_at AS ${sql("publishedAt")}
          FROM svc_legal_documents WHERE tenant_id = ${tenantId} ORDER BY created_at DESC, id LIMIT 8`
    })

    return { perDay, perRule, gpc, experiments, latestReleases } as const
  })
}) {}
