import { Effect, Schema } from "effect"
import { ReadSqlClient } from "../database/read-client.js"
import { rowsDecoder } from "../database/rows.js"
import { RecordRow } from "../consents/record-row.js"

/** A record row with its subject's identity link, if the subject still has one. */
export const PeriodRow = Schema.Struct({
  ...RecordRow.fields,
  external_id: Schema.NullOr(Schema.String),
  identity_provider: Schema.NullOr(Schema.String),
  verified: Schema.NullOr(Schema.Union(Schema.Number, Schema.NumberFromString))
})
export type PeriodRow = typeof PeriodRow.Type

export interface PeriodFilter {
  readonly tenantId: string
  /** Inclusive bounds of `given_at`, epoch milliseconds. */
  readonly fromMs: number
  readonly toMs: number
  readonly type: string | undefined
  readonly domain: string | undefined
  readonly policyId: string | undefined
}

/** Where a keyset page starts: after this `(given_at, id)`. */
export interface PeriodCursor {
  readonly givenAt: number
  readonly id: string
}

/** A page request: the filter, where it starts and how many rows at most. */
export interface PeriodPage extends PeriodFilter {
  readonly after: PeriodCursor | undefined
  readonly limit: number
}

/**
 * A page's rows decode with the compiled decoder of {@link PeriodRow}: the same values as the
 * schema's decoder, without the ~25 kB per record Effect's interpreter allocated, more than
 * everything else the export does with a record.
 */
const decodeRows = rowsDecoder(PeriodRow)

/** SQLite's own default page cache, 2,000 KiB (a negative `cache_size` counts KiB). */
const SQLITE_CACHE_SIZE = -2000

/**
 * SQL of the period export: keyset pages over `svc_consents_time` (tenant, given_at, id), on the
 * `ReadSqlClient` (a standby when `database.readUrl` names one).
 */
export class PeriodRecordsRepo extends Effect.Service<PeriodRecordsRepo>()("@svc/backend/PeriodRecordsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* ReadSqlClient

    const select = (q: PeriodPage) => {
      // One lower bound (the cursor's time once there is one), so the index seeks straight to it;
      // the OR then skips the rows of that millisecond already sent.
      const from = q.after === undefined ? q.fromMs : Math.max(q.fromMs, q.after.givenAt)
      const after = q.after === undefined ? sql`` : sql`AND (c.given_at > ${q.after.givenAt} OR c.id > ${q.after.id})`
      const type = q.type === undefined ? sql`` : sql`AND c.type = ${q.type}`
      const domain = q.domain === undefined ? sql`` : sql`AND c.domain = ${q.domain}`
      const policy = q.policyId === undefined
        ? sql``
        : sql`AND (c.policy_id = ${q.policyId} OR c.legal_release_id = ${q.policyId})`
      return sql<
        object
      >`SELECT c.*, l.version AS legal_version, l.hash AS legal_hash, l.effective_date AS legal_effective_date,
              s.external_id, s.identity_provider, s.verified
            FROM svc_consents c
            LEFT JOIN svc_legal_documents l ON l.id = c.legal_release_id
            LEFT JOIN svc_subjects s ON s.id = c.subject_id AND s.tenant_id = c.tenant_id
            WHERE c.tenant_id = ${q.tenantId} AND c.given_at >= ${from} AND c.given_at <= ${q.toMs}
              ${after} ${type} ${domain} ${policy}
            ORDER BY c.given_at, c.id
            LIMIT ${q.limit}`
    }

    /** One keyset page of rows, oldest first. */
    const page = (q: PeriodPage) => Effect.flatMap(select(q), decodeRows)

    /** One round trip to the database exports read from (`database.readUrl`, or the primary). */
    const reachable = Effect.asVoid(sql`SELECT 1`)

    /** Exports reading now, and the cache size the connection had before the first of them. */
    let readers = 0
    let cacheSize: number | undefined
    const setCacheSize = (size: number) => sql.unsafe(`PRAGMA cache_size = ${Math.trunc(size)}`)

    /**
     * While an export reads (scoped), SQLite's page cache is held at SQLite's own default of
     * 2 MB; the size before comes back when the last export ends. An export reads each page of
     * its period once, so a bigger cache buys it nothing, and better-sqlite3's 16 MB
     * (`SQLITE_DEFAULT_CACHE_SIZE`) filled by one export stayed with the server for good. The
     * pragma is the connection's (svc's one SQLite connection): requests served during an export
     * share the smaller cache; the database file stays in the system's page cache either way.
     * PostgreSQL and MySQL keep their caches in the database server: nothing to do there.
     */
    const holdCache = Effect.suspend(() =>
      readers++ > 0 ? Effect.void : sql<{ readonly cache_size: number }>`PRAGMA cache_size`.pipe(
        Effect.flatMap(([row]) => {
          cacheSize = row?.cache_size ?? SQLITE_CACHE_SIZE
          return setCacheSize(SQLITE_CACHE_SIZE)
        }),
        Effect.asVoid,
        Effect.tapError(() => Effect.sync(() => readers--))
      )
    )
    const releaseCache = Effect.suspend(() =>
      // Nothing to give back when the first export could not read the size (its acquire failed).
      --readers > 0 || cacheSize === undefined ? Effect.void : setCacheSize(cacheSize).pipe(
        Effect.asVoid,
        Effect.catchAll((error) => Effect.logWarning("restoring SQLite's page cache size failed", error))
      )
    )
    const pageCacheHeldSmall = sql.onDialectOrElse({
      sqlite: () => Effect.acquireRelease(holdCache, () => releaseCache),
      orElse: () => Effect.void
    })

    return { page, reachable, pageCacheHeldSmall } as const
  })
}) {}
