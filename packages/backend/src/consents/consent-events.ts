import type { StandardConsentRecord } from "@svc/schema"
import { ConsentRecordedEvent, ConsentWithdrawnEvent } from "@svc/schema"
import type { SqlError } from "@effect/sql"
import { Clock, Effect, type ParseResult } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { EventOutbox } from "../events/outbox.js"
import { PolicyManifest } from "../policy/manifest.js"
import { receiptEntries } from "./act.js"
import { byAct } from "./choices.js"
import { readConsentRow, type StoredConsent } from "./records.js"
import { ConsentsRepo } from "./repository.js"
import { type ExportedAct, toStandardRecord } from "./standard-record.js"

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

const withdrawnFrom = (previous: StoredConsent, current: StoredConsent) => {
  const categories = receiptEntries(previous.receipts)
    .filter(([category, receipt]) => receipt.value && current.receipts[category]?.value === false)
    .map(([category]) => category)
  const before = previous.vendorChoice?.grants ?? {}
  const after = current.vendorChoice?.grants ?? {}
  const vendors = Object.keys(before).filter((vendor) => before[vendor] === true && after[vendor] === false)
  return { categories, vendors }
}

/** The events a consent act reports, written through the outbox in the act's transaction. */
export class ConsentEvents extends Effect.Service<ConsentEvents>()("@svc/backend/ConsentEvents", {
  dependencies: [EventOutbox.Default, ConsentsRepo.Default, PolicyManifest.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const outbox = yield* EventOutbox
    const consents = yield* ConsentsRepo
    const manifest = yield* PolicyManifest
    const tenantId = config.tenantId ?? ""

    const recordOf = (act: RecordedAct, now: number): StandardConsentRecord => {
      // Events carry no proof fields (IP address, user agent): the export has them for who may see them.
      const exported: ExportedAct = {
        act: act.stored,
        ipAddress: null,
        userAgent: null,
        action: act.action,
        surface: act.surface,
        erasedAt: null
      }
      return toStandardRecord(
        exported,
        { subjectId: act.stored.subjectId, externalIds: act.link === null ? [] : [act.link] },
        [{ type: "given", time: new Date(act.stored.givenAt) }],
        { now, rule: manifest.rule }
      )
    }

    /** Whether any sink takes a consent act's events: if not, `recorded` writes nothing. */
    const wanted = outbox.wanted("consent.recorded") || outbox.wanted("consent.withdrawn")

    /** `consent.recorded`, and `consent.withdrawn` when the act turns off what the subject's previous act had on. */
    const recorded = (act: RecordedAct): Effect.Effect<void, SqlError.SqlError | ParseResult.ParseError> =>
      !wanted ? Effect.void : Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const record = recordOf(act, now)
        const subjectId = act.stored.subjectId
        yield* outbox.append({
          schema: ConsentRecordedEvent,
          type: "consent.recorded",
          orderKey: subjectId,
          data: record
        })
        if (act.newSubject || !outbox.wanted("consent.withdrawn")) return
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
        yield* outbox.append({
          schema: ConsentWithdrawnEvent,
          type: "consent.withdrawn",
          orderKey: subjectId,
          data: {
            record,
            previousRecordId: previous.id,
            withdrawnCategories: withdrawn.categories,
            withdrawnVendors: withdrawn.vendors
          }
        })
      })

    return { wanted, recorded } as const
  })
}) {}
