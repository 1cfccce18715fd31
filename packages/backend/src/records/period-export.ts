import { InvalidRequest } from "@svc/api"
import { Clock, Effect, Either, Option, Stream } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { parseSummaryWindow } from "../period/window.js"
import { PolicyManifest } from "../policy/manifest.js"
import { csvHeader, csvRows } from "./csv.js"
import { type PeriodCursor, type PeriodFilter, PeriodRecordsRepo, type PeriodRow } from "./period-repository.js"
import { readRecordRow, standaloneEvents, toStandardRecord } from "../consents/standard-record.js"

const DAY_MS = 86_400_000
const MAX_PERIOD_DAYS = 366
/**
 * Rows per keyset page: what the export holds in memory at once. A page's rows, records and text
 * should die young, before two young-generation collections have passed, or they are promoted and
 * wait for a full collection: a 1M-record export peaked at 221 MB RSS with pages of 500 and at
 * 150 MB with pages of 100 (before the per-record text was made row by row). At ~20 kB allocated
 * per record a page of 25 is ~0.5 MB, under even a small young generation. With V8's defaults the
 * server's RSS is the same after 100,000 records and after 1,000,000 (`npm run bench -- export`).
 */
export const EXPORT_PAGE_SIZE = 25

/**
 * One turn of the event loop. A fast reader keeps the socket's buffer empty: every write then
 * completes at once and its `drain` comes on the next tick, so without this the export ran from
 * first page to last without the event loop ever polling. For minutes nothing else was served,
 * no connection accepted, no timer fired; GC tasks that wait on the loop waited too.
 */
const eventLoopTurn = Effect.async<void>((resume) => {
  const immediate = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(immediate))
})

export type ExportFormat = "ndjson" | "csv"

export interface PeriodQuery {
  readonly from: string
  readonly to: string
  readonly format?: ExportFormat | undefined
  readonly type?: string | undefined
  readonly domain?: string | undefined
  readonly policyId?: string | undefined
}

/**
 * `GET /consents/export`: every record of a period as a stream of text, read in keyset pages of
 * {@link EXPORT_PAGE_SIZE} rows, so memory stays constant and the first line leaves before the
 * last page is read. Each record stands alone (`given`, `expired`, `erased` events; a withdrawal
 * is the later act's own record); `/subjects/:id/export` relates a subject's acts.
 */
export class PeriodExports extends Effect.Service<PeriodExports>()("@svc/backend/PeriodExports", {
  dependencies: [PeriodRecordsRepo.Default, PolicyManifest.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* PeriodRecordsRepo
    const manifest = yield* PolicyManifest
    const tenantId = config.tenantId ?? ""

    /** Checks the period: both ends given, `from` not after `to`, at most 366 days. */
    const filterOf = (query: PeriodQuery): Either.Either<PeriodFilter, InvalidRequest> =>
      Either.flatMap(parseSummaryWindow({ from: query.from, to: query.to }), ({ fromMs, toMs }) => {
        if (fromMs === null || toMs === null)
          return Either.left(new InvalidRequest({ message: "from and to are required" }))
        if (toMs - fromMs >= MAX_PERIOD_DAYS * DAY_MS) {
          return Either.left(
            new InvalidRequest({ message: `The period is longer than ${MAX_PERIOD_DAYS} days; export it in parts` })
          )
        }
        return Either.right({
          tenantId,
          fromMs,
          toMs,
          type: query.type,
          domain: query.domain,
          policyId: query.policyId
        })
      })

    const recordOf = (row: PeriodRow, now: number) => {
      const exported = readRecordRow(row)
      const context = { now, rule: manifest.rule }
      const externalIds = row.external_id === null
        ? []
        : [{
          externalId: row.external_id,
          identityProvider: row.identity_provider ?? "external",
          verified: Number(row.verified) === 1
        }]
      return toStandardRecord(
        exported,
        { subjectId: row.subject_id, externalIds },
        standaloneEvents(exported, context),
        context
      )
    }

    /** The rows of the period, oldest first, one stream element per keyset page. */
    const pages = (filter: PeriodFilter) =>
      Stream.paginateEffect(
        undefined,
        (after: PeriodCursor | undefined) =>
          repo.page({ ...filter, after, limit: EXPORT_PAGE_SIZE }).pipe(
            Effect.map((rows) => {
              const last = rows[rows.length - 1]
              const next = rows.length < EXPORT_PAGE_SIZE || last === undefined
                ? Option.none<PeriodCursor | undefined>()
                : Option.some({ givenAt: last.given_at, id: last.id })
              return [rows, next] as const
            }),
            Effect.zipLeft(eventLoopTurn)
          )
      )

    /** A page's text: each record is made, written and dropped before the next one is read. */
    const pageText = (rows: ReadonlyArray<PeriodRow>, format: ExportFormat, now: number) => {
      let text = ""
      for (const row of rows) {
        const record = recordOf(row, now)
        text += format === "csv" ? csvRows(record) : `${JSON.stringify(record)}\n`
      }
      return text
    }

    /**
     * The export as text chunks in the requested format (one chunk per page). A record's JSON is
     * `JSON.stringify` of it: its only non-JSON values are `Date`s, which serialise as the ISO
     * strings `Timestamp` encodes to (the tests decode every line with the schema); running the
     * schema encoder per record would cost more than the query.
     */
    const text = (filter: PeriodFilter, format: ExportFormat) => {
      const body = Stream.unwrapScoped(
        Effect.gen(function*() {
          yield* repo.pageCacheHeldSmall
          const now = yield* Clock.currentTimeMillis
          return Stream.map(pages(filter), (rows) => pageText(rows, format, now))
        })
      )
      return format === "csv" ? Stream.concat(Stream.make(csvHeader), body) : body
    }

    return { filterOf, text } as const
  })
}) {}
