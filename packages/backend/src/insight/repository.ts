import { type SqlError, SqlSchema } from "@effect/sql"
import { Effect, type ParseResult, Schema } from "effect"
import { compileDecoder } from "../codec/compiled.js"
import { ReadSqlClient } from "../database/read-client.js"
import { SqlNumber } from "../database/columns.js"
import { decodedNow } from "../database/rows.js"

/** One insight query: a tenant (`''` in single-tenant scope), a half-open period and maybe a domain. */
export const InsightScope = Schema.Struct({
  tenantId: Schema.String,
  fromMs: Schema.Number,
  toMs: Schema.Number,
  domain: Schema.NullOr(Schema.String)
})
export type InsightScope = typeof InsightScope.Type

/**
 * Receives a period's totals as the insight statement returns them, one call per row: decisions per
 * UTC day (whole days since the epoch) and action, per rule (and how many accepted all), per visitor
 * country (`null` where none was recorded), per experiment, and the period's decisions with how many
 * carried a GPC proof. The page's sums are built from these (totals.ts).
 */
export interface TotalsVisitor {
  readonly day: (day: number, action: string | null, decisions: number) => void
  readonly rule: (policyId: string | null, decisions: number, acceptAll: number) => void
  readonly country: (country: string | null, decisions: number, acceptAll: number) => void
  readonly experiment: (experimentId: string, decisions: number) => void
  readonly gpc: (decisions: number, withGpc: number) => void
}

// A row's values are decoded as `SqlNumber` and `Schema.NullOr(Schema.String)` decode them, with
// the common case (a number, a string or NULL, as the drivers return them) tested first, and read
// by position (`.values`): no object per row.
const decodeSqlNumber = compileDecoder(SqlNumber)
const decodeNullableString = compileDecoder(Schema.NullOr(Schema.String))
const decodeString = compileDecoder(Schema.String)
const sqlNumber = (value: unknown): number => typeof value === "number" ? value : decodeSqlNumber(value)
const nullableString = (value: unknown): string | null =>
  typeof value === "string" || value === null ? value : decodeNullableString(value)
const string = (value: unknown): string => typeof value === "string" ? value : decodeString(value)

const ReleaseRow = Schema.Struct({
  type: Schema.String,
  version: Schema.String,
  effectiveDate: SqlNumber,
  publishedAt: SqlNumber
})
export type ReleaseRow = typeof ReleaseRow.Type

const DAY_MS = 86_400_000

/**
 * The insight page's SQL: its totals in one statement, grouped from the `svc_consents_insight`
 * index on SQLite and PostgreSQL (migration 21: tenant, UTC day, action, rule, experiment, country,
 * then the filtered and counted columns) without reading a table row, and from the period's rows on
 * MySQL, which has no such index. The period bounds every range read, so the cost follows the
 * period's rows, never the table's (ADR 0096).
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

    const accepted = sql`SUM(CASE WHEN action = ${"accept_all"} THEN decisions ELSE 0 END)`

    /**
     * The period's decisions and GPC proofs per day, action, rule and experiment, and per country
     * too when `byCountry`: grouped in index order on SQLite and PostgreSQL, so without a sort.
     * Without the country a period has a few cells a day however many visitors; with it a sparse
     * period has about as many cells as rows (53,053 for 100,010 over a year).
     */
    const cells = (scope: InsightScope, byCountry: boolean) => {
      const keys = sql.literal(
        byCountry ? "action, policy_id, experiment_id, country" : "action, policy_id, experiment_id"
      )
      return sql`SELECT ${day} AS day, ${keys}, COUNT(*) AS decisions, COUNT(gpc) AS with_gpc
        FROM svc_consents WHERE ${where(scope)}
        GROUP BY ${day}, ${keys}`
    }

    /**
     * PostgreSQL: one read, the cells with the country summed per grouping set (its aggregates take
     * every set in one pass over the cells). The empty set's row, which an empty period gives too,
     * is kept only when there are cells, as on the other dialects.
     */
    const groupingSets = (scope: InsightScope) =>
      sql`SELECT
          CASE WHEN GROUPING(day) = 0 THEN 1 WHEN GROUPING(policy_id) = 0 THEN 2
            WHEN GROUPING(country) = 0 THEN 3 WHEN GROUPING(experiment_id) = 0 THEN 4 ELSE 5 END,
          CASE WHEN GROUPING(day) = 0 THEN day END,
          CASE WHEN GROUPING(day) = 0 THEN action END,
          CASE WHEN GROUPING(policy_id) = 0 THEN policy_id WHEN GROUPING(country) = 0 THEN country
            WHEN GROUPING(experiment_id) = 0 THEN experiment_id END,
          SUM(decisions), ${accepted}, SUM(with_gpc)
        FROM (${cells(scope, true)}) c
        GROUP BY GROUPING SETS ((day, action), (policy_id), (country), (experiment_id), ())
        HAVING COUNT(*) > 0 AND (GROUPING(experiment_id) = 1 OR experiment_id IS NOT NULL)`

    // The keys of a total `k` summed from the cells joined with `g` (3, per country, is not one).
    const keysOfK = sql.literal(
      "CASE WHEN k = 1 THEN day END, CASE WHEN k = 1 THEN action END, " +
        "CASE WHEN k = 2 THEN policy_id WHEN k = 4 THEN experiment_id END"
    )

    /**
     * SQLite and MySQL, which have no grouping sets: two reads of the period, each grouped narrowly.
     * The cells without the country (a derived table referenced once: MariaDB computes a `WITH`
     * once per reference) are joined with a four-row table and summed per day and action, per rule,
     * per experiment and over the period; the rows are grouped per country. Cells with the country
     * summed twice over cost more: SQLite sorted every cell of a sparse period, MariaDB filled a
     * temporary table as large (ADR 0096).
     */
    const twoReads = (scope: InsightScope) =>
      sql`SELECT k, ${keysOfK}, SUM(decisions), ${accepted}, SUM(with_gpc)
        FROM (${cells(scope, false)}) c
        CROSS JOIN (SELECT 1 AS k UNION ALL SELECT 2 AS k UNION ALL SELECT 4 AS k UNION ALL SELECT 5 AS k) g
        WHERE k <> 4 OR experiment_id IS NOT NULL
        GROUP BY k, ${keysOfK}
        UNION ALL
        SELECT 3, NULL, NULL, country, COUNT(*), SUM(CASE WHEN action = ${"accept_all"} THEN 1 ELSE 0 END), NULL
        FROM svc_consents WHERE ${where(scope)}
        GROUP BY country`

    /**
     * The period's totals, given to `visit` as they come, one row per total: its kind `k` (1 per
     * day and action, 2 per rule, 3 per country, 4 per experiment, 5 the whole period), day, action,
     * name (the rule, country or experiment), decisions, how many accepted all, how many carried a
     * GPC proof. Each dialect runs the statement measured fastest on it (ADR 0096). Read as arrays
     * of column values (`.values`).
     */
    const totals = (
      scope: InsightScope,
      visit: TotalsVisitor
    ): Effect.Effect<void, SqlError.SqlError | ParseResult.ParseError> =>
      Effect.flatMap(
        sql.onDialectOrElse({ pg: () => groupingSets(scope), orElse: () => twoReads(scope) }).values,
        (rows) =>
          decodedNow(() => {
            for (const row of rows) {
              const decisions = sqlNumber(row[4])
              switch (sqlNumber(row[0])) {
                case 1:
                  visit.day(sqlNumber(row[1]), nullableString(row[2]), decisions)
                  break
                case 2:
                  visit.rule(nullableString(row[3]), decisions, sqlNumber(row[5]))
                  break
                case 3:
                  visit.country(nullableString(row[3]), decisions, sqlNumber(row[5]))
                  break
                case 4:
                  visit.experiment(string(row[3]), decisions)
                  break
                case 5:
                  visit.gpc(decisions, sqlNumber(row[6]))
              }
            }
          })
      )

    /** The latest legal-document publishes of the tenant (index `(tenant_id, type, created_at)`). */
    const latestReleases = SqlSchema.findAll({
      Request: Schema.String,
      Result: ReleaseRow,
      execute: (tenantId) =>
        sql`SELECT type, version, effective_date AS ${sql("effectiveDate")}, created_at AS ${sql("publishedAt")}
          FROM svc_legal_documents WHERE tenant_id = ${tenantId} ORDER BY created_at DESC, id LIMIT 8`
    })

    return { totals, latestReleases } as const
  })
}) {}
