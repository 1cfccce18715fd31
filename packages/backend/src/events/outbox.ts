import type { LegalDocumentRelease, OptionalCategory, StandardConsentRecord, SvcEventType } from "@svc/schema"
import {
  ConsentRecordedEvent,
  ConsentWithdrawnEvent,
  LegalDocumentPublishedEvent,
  LogCheckpointEvent,
  SubjectErasedEvent,
  SubjectLinkedEvent
} from "@svc/schema"
import type { SqlError } from "@effect/sql"
import { randomBytes } from "node:crypto"
import { Clock, Effect, type ParseResult, Schema } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { byAct } from "../consents/choices.js"
import { readConsentRow, type StoredConsent } from "../consents/records.js"
import { ConsentsRepo } from "../consents/repository.js"
import { PolicyManifest } from "../policy/manifest.js"
import { type ExportedAct, toStandardRecord } from "../records/standard-record.js"
import { EventsRepo } from "./repository.js"
import { EventSinks } from "./sinks.js"

export const newEventId = () => `evt_${randomBytes(16).toString("base64url")}`
export const newDeliveryId = () => `dlv_${randomBytes(16).toString("base64url")}`

/** What a stored consent act brings to its events besides the row. */
export interface RecordedAct {
  readonly stored: StoredConsent
  /** The identity link the save carried, if any. */
  readonly link: { readonly externalId: string; readonly identityProvider: string; readonly verified: boolean } | null
  /** The save created the subject: it has no earlier act to withdraw from. */
  readonly newSubject: boolean
  readonly action: ExportedAct["action"]
  readonly surface: ExportedAct["surface"]
}

export interface ErasedSubject {
  /** The id the operator erased (before it is replaced by its keyed hash). */
  readonly subjectId: string
  readonly externalIds: ReadonlyArray<string>
  readonly erasedAt: number
  /** Acts kept as anonymous proof. */
  readonly recordCount: number
}

const withdrawnFrom = (previous: StoredConsent, current: StoredConsent) => {
  const categories = Object.entries(previous.receipts)
    .filter(([category, receipt]) => receipt.value && current.receipts[category as OptionalCategory]?.value === false)
    .map(([category]) => category as OptionalCategory)
  const before = previous.vendorChoice?.grants ?? {}
  const after = current.vendorChoice?.grants ?? {}
  const vendors = Object.keys(before).filter((vendor) => before[vendor] === true && after[vendor] === false)
  return { categories, vendors }
}

/**
 * The transactional outbox. Each function writes one event (and one pending delivery per sink
 * that takes its type) with the caller's SQL client: called inside the caller's
 * `sql.withTransaction`, the event commits or rolls back with the fact it reports. With no sink
 * taking the type, nothing is written.
 */
export class EventOutbox extends Effect.Service<EventOutbox>()("@svc/backend/EventOutbox", {
  dependencies: [EventsRepo.Default, ConsentsRepo.Default, PolicyManifest.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* EventsRepo
    const consents = yield* ConsentsRepo
    const manifest = yield* PolicyManifest
    const sinks = yield* EventSinks
    const tenantId = config.tenantId ?? ""

    const endpointsFor = (type: SvcEventType) => sinks.filter((sink) => sink.accepts(type)).map((sink) => sink.id)
    const wanted = (type: SvcEventType) => endpointsFor(type).length > 0

    /** Writes one event; `orderKey` groups the events whose order is kept (a subject's). */
    const append = <S extends Schema.Schema.AnyNoContext>(
      schema: S,
      type: SvcEventType,
      orderKey: string,
      data: unknown
    ): Effect.Effect<void, SqlError.SqlError> =>
      Effect.gen(function*() {
        const endpoints = endpointsFor(type)
        if (endpoints.length === 0) return
        const now = yield* Clock.currentTimeMillis
        const id = newEventId()
        const encoded = yield* Effect.orDie(
          Schema.encodeUnknown(schema)({ id, type, occurredAt: new Date(now), tenantId, data })
        )
        yield* repo.insertEvent({ id, tenantId, type, occurredAt: now, payload: JSON.stringify(encoded) })
        for (const endpoint of endpoints) {
          yield* repo.insertDelivery({ id: newDeliveryId(), eventId: id, tenantId, endpoint, orderKey, now })
        }
      })

    const recordOf = (act: RecordedAct, now: number): StandardConsentRecord => {
      // Events carry no proof fields (IP address, user agent): the export has them for who may see them.
      const exported = {
        act: act.stored,
        ipAddress: null,
        userAgent: null,
        action: act.action,
        surface: act.surface,
        erasedAt: null
      } as ExportedAct
      return toStandardRecord(
        exported,
        { subjectId: act.stored.subjectId, externalIds: act.link === null ? [] : [act.link] },
        [{ type: "given", time: new Date(act.stored.givenAt) }],
        { now, rule: manifest.rule }
      )
    }

    /** `consent.recorded`, and `consent.withdrawn` when the act turns off what the subject's previous act had on. */
    const consentRecorded = (act: RecordedAct): Effect.Effect<void, SqlError.SqlError | ParseResult.ParseError> =>
      Effect.gen(function*() {
        if (!wanted("consent.recorded") && !wanted("consent.withdrawn")) return
        const now = yield* Clock.currentTimeMillis
        const record = recordOf(act, now)
        const subjectId = act.stored.subjectId
        yield* append(ConsentRecordedEvent, "consent.recorded", subjectId, record)
        if (act.newSubject || !wanted("consent.withdrawn")) return
        const earlier = (yield* consents.listBySubject({ tenantId, subjectId }))
          .map(readConsentRow)
          .filter((c) =>
            c.readable && c.id !== act.stored.id && c.type === act.stored.type && c.domain === act.stored.domain
          )
          .sort(byAct)
        const previous = earlier.at(-1)
        if (previous === undefined || byAct(previous, act.stored) > 0) return
        const withdrawn = withdrawnFrom(previous, act.stored)
        if (withdrawn.categories.length === 0 && withdrawn.vendors.length === 0) return
        yield* append(ConsentWithdrawnEvent, "consent.withdrawn", subjectId, {
          record,
          previousRecordId: previous.id,
          withdrawnCategories: withdrawn.categories,
          withdrawnVendors: withdrawn.vendors
        })
      })

    const subjectLinked = (link: {
      readonly subjectId: string
      readonly externalId: string
      readonly identityProvider: string
      readonly verified: boolean
    }) => append(SubjectLinkedEvent, "subject.linked", link.subjectId, link)

    /**
     * `subject.erased`, for the erasure transaction: also drops the subject's events the outbox
     * has delivered (they name the subject); undelivered ones still go out, before this one.
     */
    const subjectErased = (erased: ErasedSubject) =>
      Effect.zipRight(
        repo.purgeDeliveredOf({ tenantId, orderKey: erased.subjectId }),
        append(SubjectErasedEvent, "subject.erased", erased.subjectId, {
          ...erased,
          erasedAt: new Date(erased.erasedAt)
        })
      )

    const legalDocumentPublished = (release: LegalDocumentRelease) =>
      append(LegalDocumentPublishedEvent, "legal_document.published", `legal:${release.type}`, release)

    /** `log.checkpoint`, for the transaction that stores the checkpoint. */
    const logCheckpoint = (
      checkpoint: { readonly treeSize: number; readonly rootHash: string; readonly checkpoint: string }
    ) => append(LogCheckpointEvent, "log.checkpoint", "log", checkpoint)

    return { consentRecorded, subjectLinked, subjectErased, legalDocumentPublished, logCheckpoint } as const
  })
}) {}
