import { SqlClient } from "@effect/sql"
import type { PolicyPack } from "@svc/schema"
import { Clock, Effect, Layer, Schedule } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { ConsentPartitions } from "../database/consent-partitions.js"
import { orDatabaseError } from "../database/database-error.js"
import { retryDeadlocks } from "../database/deadlock.js"
import { PolicyManifest } from "../policy/manifest.js"
import { type BatchCursor, RETENTION_BATCH, RetentionRepo } from "./repository.js"

const DAY_MS = 86_400_000
const DEFAULT_VALIDITY_DAYS = 365

/**
 * What one retention run changed, by kind (rows changed by this run only).
 *
 * @example
 * ```ts
 * import { Retention, type RetentionReport } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // Warn the privacy team when a run retires far more than a normal night does.
 * const unusual = (report: RetentionReport) => report.recordsRetired > 10_000 || report.subjectsDeleted > 5_000
 * const nightly = Effect.flatMap(Retention, (retention) => retention.runOnce()).pipe(
 *   Effect.tap((report) => unusual(report) ? Effect.logWarning("retention: unusual volume", report) : Effect.void)
 * )
 * ```
 */
export interface RetentionReport {
  readonly ipAddressesCleared: number
  readonly userAgentsCleared: number
  readonly recordsRetired: number
  readonly choicesExpired: number
  /** Subjects left with no record and no identity link, deleted (only with `recordDays`). */
  readonly subjectsDeleted: number
  /** Month partitions dropped whole (PostgreSQL with `recordDays` and `dropExpiredMonths` only). */
  readonly monthsDropped: number
}

/**
 * Storage limitation (GDPR Art. 5(1)(e)) and consent validity. One run, in bounded batches:
 * clears IP addresses older than `retention.ipAddressDays` and user agents older than
 * `userAgentDays`; retires records older than `recordDays` (the row stays as anonymous proof that
 * the act happened: no subject, no IP, user agent or journey); marks cookie-banner choices past
 * their rule's `validityDays` (365 without a rule) as expired; with `recordDays`, then deletes the
 * subjects those retirements (or an erasure's unlinking) left with no record and no identity link.
 * With `dropExpiredMonths` on a partitioned PostgreSQL table, each month wholly past `recordDays`
 * is dropped first (`ConsentPartitions.dropMonthsBefore`), so the sweeps only meet the rows of
 * the month the cutoff falls in (and of the default partition). Without `retention` only expiry
 * runs. A running instance (and `SvcServices.layer`) runs it every `retention.intervalMinutes`;
 * `runOnce` is one run now (what `svc purge` does).
 *
 * @example
 * ```ts
 * import { Retention } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * const nightly = Effect.flatMap(Retention, (retention) => retention.runOnce())
 * ```
 */
export class Retention extends Effect.Service<Retention>()("@svc/backend/Retention", {
  dependencies: [RetentionRepo.Default, PolicyManifest.Default, ConsentPartitions.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* RetentionRepo
    const sql = yield* SqlClient.SqlClient
    const manifest = yield* PolicyManifest
    const partitions = yield* ConsentPartitions
    const tenantId = config.tenantId ?? ""
    const retention = config.retention
    const rules: ReadonlyArray<PolicyPack> = config.manifest.policyRules
      .map((rule) => manifest.rule(rule.id))
      .filter((rule): rule is PolicyPack => rule !== undefined)

    /** Walks every batch of one kind of work, applying each; returns the rows changed. */
    const sweep = (
      kind: "ipAddress" | "userAgent" | "retire" | "expire",
      cutoff: number,
      now: number,
      policy?: { readonly id: string } | { readonly notIn: ReadonlyArray<string> }
    ) =>
      Effect.gen(function*() {
        let after: BatchCursor | undefined
        let changed = 0
        while (true) {
          const rows = yield* repo.batch({ tenantId, kind, cutoff, after, ...(policy === undefined ? {} : { policy }) })
          changed += yield* retryDeadlocks(repo.apply(tenantId, kind, rows.map((r) => r.id), now))
          const last = rows[rows.length - 1]
          if (rows.length < RETENTION_BATCH || last === undefined) return changed
          after = { givenAt: Number(last.given_at), id: last.id }
        }
      })

    /** Deletes idle subjects batch by batch, each batch in its own short transaction. */
    const deleteIdleSubjects = Effect.gen(function*() {
      let after: string | undefined
      let deleted = 0
      while (true) {
        const rows = yield* repo.idleSubjects({ tenantId, after })
        const ids = rows.map((r) => r.id)
        deleted += yield* retryDeadlocks(sql.withTransaction(repo.deleteIdle(tenantId, ids)))
        const last = ids[ids.length - 1]
        if (ids.length < RETENTION_BATCH || last === undefined) return deleted
        after = last
      }
    })

    const days = (n: number | undefined, now: number) => (n === undefined ? undefined : now - n * DAY_MS)

    /** One run; `at` (epoch ms) replaces the clock's time (a test, or a run "as of" a moment). */
    const runOnce = (at?: number) =>
      Effect.gen(function*() {
        const now = at ?? (yield* Clock.currentTimeMillis)
        const ipCutoff = days(retention?.ipAddressDays, now)
        const uaCutoff = days(retention?.userAgentDays, now)
        const recordCutoff = days(retention?.recordDays, now)
        const dropping = recordCutoff !== undefined && retention?.dropExpiredMonths === true
        // A drop that cannot have its lock (a long export reading the table) waits for the next run;
        // this run's sweeps retire those months' rows meanwhile.
        const monthsDropped = dropping
          ? (yield* partitions.dropMonthsBefore(tenantId, recordCutoff, now).pipe(
            Effect.catchAll((error) =>
              Effect.as(Effect.logWarning("retention: dropping expired months failed; retiring their rows", error), [])
            )
          )).length
          : 0
        const report: RetentionReport = {
          ipAddressesCleared: ipCutoff === undefined ? 0 : yield* sweep("ipAddress", ipCutoff, now),
          userAgentsCleared: uaCutoff === undefined ? 0 : yield* sweep("userAgent", uaCutoff, now),
          recordsRetired: recordCutoff === undefined ? 0 : yield* sweep("retire", recordCutoff, now),
          choicesExpired: (yield* Effect.forEach(rules, (rule) =>
            sweep("expire", now - (rule.validityDays ?? DEFAULT_VALIDITY_DAYS) * DAY_MS, now, { id: rule.id }))).reduce(
              (a, b) =>
                a + b,
              0
            ) + (yield* sweep("expire", now - DEFAULT_VALIDITY_DAYS * DAY_MS, now, {
              notIn: rules.map((r) =>
                r.id
              )
            })),
          subjectsDeleted: recordCutoff === undefined ? 0 : yield* deleteIdleSubjects,
          monthsDropped
        }
        yield* Effect.logInfo(
          `retention: ${report.ipAddressesCleared} IP addresses cleared, ${report.userAgentsCleared} user agents cleared, ` +
            `${report.recordsRetired} records retired, ${report.choicesExpired} choices expired, ` +
            `${report.subjectsDeleted} idle subjects deleted` + (dropping ? `, ${monthsDropped} months dropped` : "")
        )
        return report
      }).pipe(orDatabaseError)

    return { runOnce } as const
  })
}) {}

/**
 * The periodic job of a running instance: a first run a minute after start, then one every
 * `retention.intervalMinutes` (default 60). A failed run is logged and the next one still comes.
 */
export const RetentionJobLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const purge = yield* Retention
    const interval = `${config.retention?.intervalMinutes ?? 60} minutes` as const
    const run = purge.runOnce().pipe(Effect.catchAllCause((cause) => Effect.logWarning("retention run failed", cause)))
    yield* run.pipe(Effect.repeat(Schedule.spaced(interval)), Effect.delay("1 minute"), Effect.forkScoped)
  })
)
