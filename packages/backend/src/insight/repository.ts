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
 * Receives the insight aggregate's two groupings of a period's decisions: `day`, those of one UTC
 * day (whole days since the epoch) and action; `group`, those of one action, rule, experiment and
 * visitor country (`null` where none was recorded), and how many carried a GPC proof. The page
 * sums its totals per day, rule, experiment and country from these (cells.ts).
 */
export interface CellVisitor {
  readonly day: (day: number, action: string | null, decisions: number) => void
  readonly group: (
    action: string | null,
    policyId: string | null,
    experimentId: string | null,
    country: string | null,
    decisions: number,
    withGpc: number
  ) => void
}

// A cell's values are decoded as `SqlNumber` and `Schema.NullOr(Schema.String)` decode them, with
// the common case (a number, a string or NULL, as the drivers return them) tested first: a period
// can hold as many cells as rows (ADR 0096), so no object is made per cell.
const decodeSqlNumber = compileDecoder(SqlNumber)
const decodeNullableString = compileDecoder(Schema.NullOr(Schema.String))
const sqlNumber = (value: unknown): number => typeof value === "number" ? value : decodeSqlNumber(value)
const nullableString = (value: unknown): string | null =>
  typeof value === "string" || value === null ? value : decodeNullableString(value)

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
 * period's rows. The same statement sums the cells per day and action and per action, rule,
 * experiment and country, so svc reads a few rows a day however sparse the cells (ADR 0096). The
 * period bounds the index range, so the cost follows the period's rows, never the table's.
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

    // The second grouping's keys are NULL in the first's rows, the first's in the second's.
    const ofGroup = (k: 1 | 2, column: string) => sql.literal(`CASE WHEN g.k = ${k} THEN c.${column} END`)
    const groupKeys = sql.csv([
      ofGroup(1, "day"),
      sql.literal("c.action"),
      ofGroup(2, "policy_id"),
      ofGroup(2, "experiment_id"),
      ofGroup(2, "country")
    ])

    /**
     * The period's decisions grouped twice in one statement, given to `visit` as they come: per
     * day and action, and per action, rule, experiment and country. The period's rows are read
     * once into cells (day, action, rule, experiment, country: in index order, no sort), and the
     * cells, a derived table referenced once (so no dialect reads the period twice; MariaDB
     * computes a `WITH` once per reference, ADR 0096), are joined with a two-row table and summed
     * per grouping. A sparse period has about as many cells as rows; the groupings stay a few per
     * day. Read as arrays of column values (`.values`), no object per row.
     */
    const cells = (
      scope: InsightScope,
      visit: CellVisitor
    ): Effect.Effect<void, SqlError.SqlError | ParseResult.ParseError> =>
      Effect.flatMap(
        sql`SELECT g.k, ${groupKeys}, SUM(c.decisions), SUM(c.with_gpc)
          FROM (
            SELECT ${day} AS day, action, policy_id, experiment_id, country, COUNT(*) AS decisions,
              COUNT(gpc) AS with_gpc
            FROM svc_consents WHERE ${where(scope)}
            GROUP BY ${day}, action, policy_id, experiment_id, country
          ) c
          CROSS JOIN (SELECT 1 AS k UNION ALL SELECT 2 AS k) g
          GROUP BY g.k, ${groupKeys}`.values,
        (rows) =>
          decodedNow(() => {
            for (const row of rows) {
              if (sqlNumber(row[0]) === 1) visit.day(sqlNumber(row[1]), nullableString(row[2]), sqlNumber(row[6]))
              else {
                visit.group(
                  nullableString(row[2]),
                  nullableString(row[3]),
                  nullableString(row[4]),
                  nullableString(row[5]),
                  sqlNumber(row[6]),
                  sqlNumber(row[7])
                )
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

    return { cells, latestReleases } as const
  })
}) {}
