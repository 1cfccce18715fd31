import { Migrator, type SqlClient } from "@effect/sql"
import { Data, Effect, Option, Predicate } from "effect"
import { propertyOf } from "../../codec/guards.js"
import subjects from "./1-subjects.js"
import consents from "./2-consents.js"
import legalDocuments from "./3-legal-documents.js"
import vendorChoice from "./4-vendor-choice.js"
import experimentSummaryIndex from "./5-experiment-summary-index.js"
import legalRevision from "./6-legal-revision.js"
import legalRevisionUnique from "./7-legal-revision-unique.js"
import mysqlBinaryCollation from "./8-mysql-binary-collation.js"
import consentErasedAt from "./9-consent-erased-at.js"
import secrets from "./10-secrets.js"
import eventOutbox from "./11-event-outbox.js"
import consentExportIndex from "./12-consent-export-index.js"
import consentGpc from "./13-consent-gpc.js"
import eventDeliveryEventIndex from "./14-event-delivery-event-index.js"
import consentSignalStrings from "./15-consent-signal-strings.js"
import consentExpiredAt from "./16-consent-expired-at.js"
import consentInsightIndex from "./17-consent-insight-index.js"
import consentCountry from "./18-consent-country.js"
import transparencyLog from "./19-transparency-log.js"
import consentPartitions from "./20-consent-partitions.js"
import insightIndexCountry from "./21-insight-index-country.js"

/**
 * Numbered migrations, one change each; a new one gets the next number and never edits an old one.
 *
 * @example
 * ```ts
 * import { SqlClient } from "@effect/sql"
 * import { migrations } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A deploy check: has the database reached the schema this version of svc expects?
 * const expected = Math.max(...migrations.map(([id]) => id))
 * const schemaCurrent = Effect.gen(function*() {
 *   const sql = yield* SqlClient.SqlClient
 *   const rows = yield* sql<{ readonly latest: number | null }>`SELECT MAX(migration_id) AS latest FROM svc_migrations`
 *   return Number(rows[0]?.latest ?? 0) >= expected
 * })
 * ```
 */
export const migrations: ReadonlyArray<
  readonly [id: number, name: string, run: Effect.Effect<void, unknown, SqlClient.SqlClient>]
> = [
  [1, "subjects", subjects],
  [2, "consents", consents],
  [3, "legal-documents", legalDocuments],
  [4, "vendor-choice", vendorChoice],
  [5, "experiment-summary-index", experimentSummaryIndex],
  [6, "legal-revision", legalRevision],
  [7, "legal-revision-unique", legalRevisionUnique],
  [8, "mysql-binary-collation", mysqlBinaryCollation],
  [9, "consent-erased-at", consentErasedAt],
  [10, "secrets", secrets],
  [11, "event-outbox", eventOutbox],
  [12, "consent-export-index", consentExportIndex],
  [13, "consent-gpc", consentGpc],
  [14, "event-delivery-event-index", eventDeliveryEventIndex],
  [15, "consent-signal-strings", consentSignalStrings],
  [16, "consent-expired-at", consentExpiredAt],
  [17, "consent-insight-index", consentInsightIndex],
  [18, "consent-country", consentCountry],
  [19, "transparency-log", transparencyLog],
  [20, "consent-partitions", consentPartitions],
  [21, "insight-index-country", insightIndexCountry]
]

/** A migration step that failed: which one, and the driver's reason (never the connection URL). */
export class MigrationFailed extends Data.TaggedError("MigrationFailed")<{
  readonly message: string
  /** The migration that failed; absent when a setup step (lock, schema, table) did. */
  readonly migrationId?: number
}> {}

/** The driver's reason for a failed statement: `code: message` of the SqlError's cause. */
export const driverReason = (error: unknown): string => {
  const cause = propertyOf(error, "cause")
  const parts = [propertyOf(cause, "code"), propertyOf(cause, "message") ?? propertyOf(error, "message")]
  const reason = parts.filter((part) => part !== undefined && part !== "").map(String).join(": ")
  return reason === "" ? String(error) : reason
}

const runMigrator = Migrator.make({})

/**
 * Applies every pending migration; returns the ones it applied as `[id, name]`. A failing one is
 * reported as `MigrationFailed` naming it (`Migration 3-legal-documents failed: <driver reason>`);
 * the Migrator itself would only raise a defect.
 */
export const runMigrations = runMigrator({
  loader: Effect.succeed(migrations.map(([id, name, run]) =>
    [
      id,
      name,
      Effect.succeed(Effect.mapError(run, (error) =>
        new MigrationFailed({ message: `Migration ${id}-${name} failed: ${driverReason(error)}`, migrationId: id })))
    ] as const
  )),
  table: "svc_migrations"
}).pipe(
  Effect.catchSomeDefect((defect) => {
    const cause = Predicate.isTagged(defect, "MigrationError") ? propertyOf(defect, "cause") : undefined
    return cause instanceof MigrationFailed ? Option.some(Effect.fail(cause)) : Option.none()
  })
)
