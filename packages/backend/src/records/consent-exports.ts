import { InvalidRequest } from "@svc/api"
import type { ConsentProof } from "@svc/schema"
import { Clock, Effect, Either, Option, Stream } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { eventLoopTurn } from "../database/event-loop.js"
import { parseSummaryWindow } from "../period/window.js"
import { PolicyManifest } from "../policy/manifest.js"
import { type ExportProofOption, ExportProofs } from "../transparency/export-proofs.js"
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
 * The text a period export is written in: NDJSON (one 27560 record per line, the default) or CSV
 * (one row per category receipt, for spreadsheets).
 *
 * @example
 * ```ts
 * import type { ExportFormat } from "@svc/backend"
 *
 * // The file name an operator's download gets.
 * const fileName = (month: string, format: ExportFormat) => `consents-${month}.${format}`
 * ```
 */
export type ExportFormat = "ndjson" | "csv"

/**
 * What `ConsentExports.stream` exports (the query of `GET /consents/export`): a period of at most
 * 366 days, optionally one type, domain or policy; `proofs` only with NDJSON.
 *
 * @example
 * ```ts
 * import type { PeriodQuery } from "@svc/backend"
 *
 * // Last quarter's cookie-banner consents on the shop, as CSV for the privacy team.
 * const quarter: PeriodQuery = { from: "2026-07-01", to: "2026-09-30", type: "cookie_banner", domain: "shop.example", format: "csv" }
 * ```
 */
export interface PeriodQuery extends ExportProofOption {
  readonly from: string
  readonly to: string
  readonly format?: ExportFormat | undefined
  readonly type?: string | undefined
  readonly domain?: string | undefined
  readonly policyId?: string | undefined
}

/**
 * Every consent record of a period (`GET /consents/export`), as NDJSON or CSV text read in keyset
 * pages of {@link EXPORT_PAGE_SIZE} rows, so memory stays constant and the first line is out
 * before the last page is read. Each record stands alone (`given`, `expired`, `erased` events; a
 * withdrawal is the later act's own record); `Subjects.export` relates one subject's acts.
 *
 * @example
 * ```ts
 * import { ConsentExports, SvcServices } from "@svc/backend"
 * import { Effect, Stream } from "effect"
 * import { appendFileSync } from "node:fs"
 *
 * // A nightly job keeps the month's records, with their log proofs, for the auditors.
 * const nightly = Effect.gen(function*() {
 *   const exports = yield* ConsentExports
 *   const text = yield* exports.stream({ from: "2026-11-01", to: "2026-11-30", proofs: true })
 *   yield* Stream.runForEach(text, (chunk) => Effect.sync(() => appendFileSync("consents-2026-11.ndjson", chunk)))
 * }).pipe(Effect.provide(SvcServices.layer({ database: { dialect: "sqlite", url: "./svc.db" } })))
 * ```
 */
export class ConsentExports extends Effect.Service<ConsentExports>()("@svc/backend/ConsentExports", {
  dependencies: [PeriodRecordsRepo.Default, PolicyManifest.Default, ExportProofs.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* PeriodRecordsRepo
    const manifest = yield* PolicyManifest
    const exportProofs = yield* ExportProofs
    const tenantId = config.tenantId ?? ""

    /** Checks the period: both ends given, `from` not after `to`, at most 366 days. */
    const periodOf = (query: PeriodQuery): Either.Either<PeriodFilter, InvalidRequest> =>
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

    /** Checks the query: its period, and no proofs asked of the CSV (they are read by programs, from NDJSON). */
    const filterOf = (query: PeriodQuery): Either.Either<PeriodFilter, InvalidRequest> =>
      query.proofs === true && query.format === "csv"
        ? Either.left(
          new InvalidRequest({
            message: "proofs: the CSV export carries no proofs; ask format=ndjson (the default) for them"
          })
        )
        : periodOf(query)

    const recordOf = (row: PeriodRow, now: number, logProof: ConsentProof | null | undefined) => {
      const exported = readRecordRow(row)
      const context = { now, rule: manifest.rule }
      const externalIds = row.external_id === null
        ? []
        : [{
          externalId: row.external_id,
          identityProvider: row.identity_provider ?? "external",
          verified: Number(row.verified) === 1
        }]
      const record = toStandardRecord(
        exported,
        { subjectId: row.subject_id, externalIds },
        standaloneEvents(exported, context),
        context
      )
      return logProof === undefined ? record : { ...record, logProof }
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
            // A fast reader keeps the socket's buffer empty: every write completes at once and its
            // drain comes on the next tick, so without this turn the export ran from first page to
            // last without the loop ever polling, and nothing else was served meanwhile.
            Effect.zipLeft(eventLoopTurn)
          )
      )

    /** A page's text: each record is made, written and dropped before the next one is read. */
    const pageText = (
      rows: ReadonlyArray<PeriodRow>,
      format: ExportFormat,
      now: number,
      proofs?: ReadonlyArray<ConsentProof | null>
    ) => {
      let text = ""
      for (let i = 0; i < rows.length; i++) {
        const record = recordOf(rows[i]!, now, proofs?.[i])
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
    const text = (filter: PeriodFilter, format: ExportFormat, options: ExportProofOption = {}) => {
      const body = Stream.unwrapScoped(
        Effect.gen(function*() {
          yield* repo.pageCacheHeldSmall
          const now = yield* Clock.currentTimeMillis
          if (options.proofs !== true) return Stream.map(pages(filter), (rows) => pageText(rows, format, now))
          // The checkpoint is the latest before the first page is read: every proof is against it.
          const batches = yield* exportProofs.start
          return Stream.mapEffect(
            pages(filter),
            (rows) => Effect.map(batches.proofsOf(rows), (proofs) => pageText(rows, format, now, proofs))
          )
        })
      )
      return format === "csv" ? Stream.concat(Stream.make(csvHeader), body) : body
    }

    /**
     * The period's records as text chunks (`format`: NDJSON, the default, or CSV), or
     * `InvalidRequest` when the query is not one: a period of at most 366 days, `proofs` only with
     * NDJSON. The database the export reads from (a standby with `database.readUrl`) must answer
     * first, else `DatabaseError`: HTTP sends its headers before the first page, and a failure
     * after them can only cut the body short.
     */
    const stream = (query: PeriodQuery) =>
      Effect.flatMap(
        filterOf(query),
        (filter) => Effect.as(orDatabaseError(repo.reachable), text(filter, query.format ?? "ndjson", query))
      )

    return { stream } as const
  })
}) {}
