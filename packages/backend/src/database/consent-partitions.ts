import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { monthName, monthOf, monthStart } from "./consent-months.js"

/** Months made ahead of the current one, so a save never waits for a partition to be made. */
export const MONTHS_AHEAD = 2

/** One partition of `svc_consents`: its name and range (`undefined` bounds for the default one). */
export interface ConsentPartition {
  readonly name: string
  readonly from: number | undefined
  readonly to: number | undefined
}

/** A month retention dropped whole: its range and how many of its rows the log had sequenced. */
export interface DroppedMonth {
  readonly name: string
  readonly from: number
  readonly to: number
  readonly sequenced: number
}

const bound = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/

/**
 * The monthly partitions of `svc_consents` on PostgreSQL (migration 20, ADR 0095). Every change
 * runs in a transaction holding one advisory lock per schema, so replicas doing it at once
 * take turns and the second finds the work done; `lock_timeout` (1 s) keeps one from queueing
 * the table's saves behind a long export (it fails, and the next run tries again). Elsewhere
 * (`svc_consents` is one table) every operation is a no-op.
 *
 * @example
 * ```ts
 * import { ConsentPartitions } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A deploy check: next month's partition is there before the month starts.
 * const ready = Effect.flatMap(ConsentPartitions, (partitions) => partitions.list).pipe(
 *   Effect.map((list) => list.some((p) => p.from !== undefined && p.from > Date.now()))
 * )
 * ```
 */
export class ConsentPartitions extends Effect.Service<ConsentPartitions>()("@svc/backend/ConsentPartitions", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Whether `svc_consents` is a partitioned table (PostgreSQL after migration 20). */
    const partitioned = sql.onDialectOrElse({
      pg: () =>
        sql<{ kind: string }>`SELECT relkind AS kind FROM pg_class WHERE oid = to_regclass('svc_consents')`.pipe(
          Effect.map((rows) => rows[0]?.kind === "p")
        ),
      orElse: () => Effect.succeed(false)
    })

    /** The partitions, by range (the default one, with no range, last). */
    const list = Effect.flatMap(partitioned, (yes) =>
      yes
        ? sql<{ name: string; bound: string }>`SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = to_regclass('svc_consents')`.pipe(Effect.map((rows) =>
          rows.map((row): ConsentPartition => {
            const range = bound.exec(row.bound)
            return {
              name: row.name,
              from: range ? Number(range[1]) : undefined,
              to: range ? Number(range[2]) : undefined
            }
          }).sort((a, b) => (a.from ?? Infinity) - (b.from ?? Infinity))
        ))
        : Effect.succeed<ReadonlyArray<ConsentPartition>>([]))

    const locked = <A, E, R>(work: Effect.Effect<A, E, R>) =>
      sql.withTransaction(
        sql`SELECT pg_advisory_xact_lock(hashtext('svc_consents partitions'), hashtext(current_schema()))`.pipe(
          Effect.zipRight(sql`SET LOCAL lock_timeout = '1s'`),
          Effect.zipRight(work)
        )
      )

    /**
     * Makes the partition of `month` unless one covers it. Rows of the month already in the default
     * partition (acts given at an odd date) move into it in the same transaction.
     */
    const ensureMonth = (month: number) =>
      Effect.gen(function*() {
        const from = monthStart(month)
        const to = monthStart(month + 1)
        const partitions = yield* list
        if (partitions.some((p) => p.from !== undefined && p.to !== undefined && p.from < to && p.to > from)) {
          return false
        }
        const name = sql(monthName(month))
        yield* sql`CREATE TABLE ${name} (LIKE svc_consents INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`
        const fallback = partitions.find((p) => p.from === undefined)
        if (fallback !== undefined) {
          yield* sql`WITH moved AS (DELETE FROM ${sql(fallback.name)} WHERE given_at >= ${from} AND given_at < ${to}
            RETURNING *) INSERT INTO ${name} SELECT * FROM moved`
        }
        yield* sql`ALTER TABLE svc_consents ATTACH PARTITION ${name}
          FOR VALUES FROM (${sql.literal(String(from))}) TO (${sql.literal(String(to))})`
        return true
      })

    /**
     * This month's partition and the next `MONTHS_AHEAD`, and the default one, each made unless
     * there; returns the names of those it made.
     */
    const ensureAhead = (now: number) =>
      Effect.flatMap(partitioned, (yes) =>
        yes
          ? locked(Effect.gen(function*() {
            const made: Array<string> = []
            for (let month = monthOf(now); month <= monthOf(now) + MONTHS_AHEAD; month++) {
              if (yield* ensureMonth(month)) made.push(monthName(month))
            }
            if (!(yield* list).some((p) => p.from === undefined)) {
              yield* sql`CREATE TABLE svc_consents_default PARTITION OF svc_consents DEFAULT`
              made.push("svc_consents_default")
            }
            return made
          }))
          : Effect.succeed<ReadonlyArray<string>>([]))

    /**
     * Drops every month partition that ends at or before `cutoff` and holds no other tenant's row,
     * noting each in `svc_consent_drops` (with the rows the log had sequenced) in the same
     * transaction. The default partition is never dropped: its rows go by retention's row sweeps.
     */
    const dropMonthsBefore = (tenantId: string, cutoff: number, now: number) =>
      Effect.flatMap(partitioned, (yes) =>
        yes
          ? locked(Effect.gen(function*() {
            const dropped: Array<DroppedMonth> = []
            for (const p of yield* list) {
              if (p.from === undefined || p.to === undefined || p.to > cutoff) continue
              const name = sql(p.name)
              const others = yield* sql`SELECT 1 FROM ${name} WHERE tenant_id <> ${tenantId} LIMIT 1`
              if (others.length > 0) continue
              const counted = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${name}
                WHERE log_index IS NOT NULL`
              const sequenced = Number(counted[0]?.n ?? 0)
              yield* sql`INSERT INTO svc_consent_drops (tenant_id, month_start, month_end, sequenced, dropped_at)
                VALUES (${tenantId}, ${p.from}, ${p.to}, ${sequenced}, ${now})`
              yield* sql`ALTER TABLE svc_consents DETACH PARTITION ${name}`
              yield* sql`DROP TABLE ${name}`
              dropped.push({ name: p.name, from: p.from, to: p.to, sequenced })
            }
            return dropped
          }))
          : Effect.succeed<ReadonlyArray<DroppedMonth>>([]))

    return { partitioned, list, ensureAhead, dropMonthsBefore } as const
  })
}) {}

/**
 * The partition maintenance of a running instance (unless `consentPartitions: "external"`): the
 * months ahead made as the instance starts (before it serves), then every hour. A failed run is logged and the next one still comes.
 */
export const ConsentPartitionJobLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    if (config.consentPartitions === "external") return
    const partitions = yield* ConsentPartitions
    const run = Clock.currentTimeMillis.pipe(
      Effect.flatMap(partitions.ensureAhead),
      Effect.tap((made) =>
        made.length === 0 ? Effect.void : Effect.logInfo(`consent partitions made: ${made.join(", ")}`)
      ),
      Effect.catchAllCause((cause) => Effect.logWarning("consent partition maintenance failed", cause))
    )
    // The first run is part of the start, so an instance that is up has its months (and a test or
    // an operator that then changes them races with nothing); the next ones come every hour.
    yield* run
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep("1 hour"), run)))
  })
).pipe(Layer.provide(ConsentPartitions.Default))
