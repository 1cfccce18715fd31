import type {
  ConsentAction,
  ConsentEvent,
  ConsentSurface,
  IdentityLinkRecord,
  PolicyPack,
  RecordPurpose,
  StandardConsentRecord
} from "@svc/schema"
import {
  CONSENT_RECORD_SCHEMA_VERSION,
  ConsentAction as ActionSchema,
  ConsentSurface as SurfaceSchema
} from "@svc/schema"
import { Schema } from "effect"
import { receiptEntries } from "./act.js"
import { byAct } from "./choices.js"
import { readConsentRow, type StoredConsent } from "./records.js"
import type { RecordRow } from "./record-row.js"

const DAY_MS = 86_400_000
const DEFAULT_VALIDITY_DAYS = 365

/** A record row read: the stored act plus the fields only an export shows. */
export interface ExportedAct {
  readonly act: StoredConsent
  readonly ipAddress: string | null
  readonly userAgent: string | null
  readonly action: ConsentAction | null
  readonly surface: ConsentSurface | null
  readonly erasedAt: number | null
}

/** `{ signals }` when the act carried a GPC signal or an IAB string, else nothing. */
const signalsOf = (act: StoredConsent) => {
  const signals = {
    ...(act.gpc === null ? {} : { gpc: act.gpc }),
    ...(act.gppString === null ? {} : { gppString: act.gppString }),
    ...(act.gppSectionIds === undefined ? {} : { gppSectionIds: act.gppSectionIds }),
    ...(act.tcString === null ? {} : { tcString: act.tcString })
  }
  return Object.keys(signals).length === 0 ? {} : { signals }
}

const isAction = Schema.is(ActionSchema)
const isSurface = Schema.is(SurfaceSchema)

export const readRecordRow = (row: RecordRow): ExportedAct => ({
  act: readConsentRow(row),
  ipAddress: row.ip_address,
  userAgent: row.user_agent,
  action: isAction(row.action) ? row.action : null,
  surface: isSurface(row.surface) ? row.surface : null,
  erasedAt: row.erased_at === null ? null : Number(row.erased_at)
})

/** What the events of a record are judged against. */
export interface RecordContext {
  readonly now: number
  readonly rule: (policyId: string) => PolicyPack | undefined
}

const grantedCategories = (act: StoredConsent) =>
  new Set(Object.entries(act.receipts).filter(([, r]) => r.value).map(([c]) => c))

/** When a cookie-banner choice expires: its rule's `validityDays` after `givenAt`; other acts never. */
const expiresAtOf = (act: StoredConsent, context: RecordContext): number | undefined => {
  if (act.type !== "cookie_banner") return undefined
  const validityDays = (act.policyId === null ? undefined : context.rule(act.policyId)?.validityDays) ??
    DEFAULT_VALIDITY_DAYS
  return act.givenAt + validityDays * DAY_MS
}

/**
 * The events of one act judged alone (the period export, where a withdrawal is the later act's own
 * record): what {@link eventsOf} gives for a list of that act only, without its grouping.
 */
export const standaloneEvents = (exported: ExportedAct, context: RecordContext): Array<ConsentEvent> => {
  const { act, erasedAt } = exported
  const events: Array<ConsentEvent> = [{ type: "given", time: new Date(act.givenAt) }]
  const expiresAt = expiresAtOf(act, context)
  if (expiresAt !== undefined && expiresAt <= context.now) events.push({ type: "expired", time: new Date(expiresAt) })
  if (erasedAt !== null) events.push({ type: "erased", time: new Date(erasedAt) })
  return events
}

/**
 * The 27560 events of each act of one subject: `given` at `givenAt`; `withdrawn` at the first
 * later act (same type and domain) that refuses a category this one granted; `expired` when a
 * cookie-banner choice outlives its rule's `validityDays` before being withdrawn; `erased` when the
 * subject was erased.
 */
export const eventsOf = (
  exported: ReadonlyArray<ExportedAct>,
  context: RecordContext
): Map<string, Array<ConsentEvent>> => {
  const acts = exported.map((e) => e.act)
  const events = new Map<string, Array<ConsentEvent>>()
  const groups = new Map<string, Array<StoredConsent>>()
  for (const act of acts) {
    const key = `${act.type}\u0000${act.domain}`
    const group = groups.get(key) ?? []
    group.push(act)
    groups.set(key, group)
  }
  for (const group of groups.values()) {
    group.sort(byAct)
    group.forEach((act, index) => {
      const list: Array<ConsentEvent> = [{ type: "given", time: new Date(act.givenAt) }]
      const granted = grantedCategories(act)
      const withdrawal = group.slice(index + 1).find((later) =>
        Object.entries(later.receipts).some(([category, receipt]) => !receipt.value && granted.has(category))
      )
      const expiresAt = expiresAtOf(act, context)
      if (withdrawal !== undefined && (expiresAt === undefined || withdrawal.givenAt < expiresAt)) {
        list.push({ type: "withdrawn", time: new Date(withdrawal.givenAt) })
      } else if (expiresAt !== undefined && expiresAt <= context.now) {
        list.push({ type: "expired", time: new Date(expiresAt) })
      }
      events.set(act.id, list)
    })
  }
  for (const { act, erasedAt } of exported) {
    if (erasedAt !== null) events.get(act.id)?.push({ type: "erased", time: new Date(erasedAt) })
  }
  return events
}

/** One act as a 27560-style record. */
export const toStandardRecord = (
  exported: ExportedAct,
  principal: { readonly subjectId: string; readonly externalIds: ReadonlyArray<IdentityLinkRecord> },
  events: ReadonlyArray<ConsentEvent>,
  context: RecordContext
): StandardConsentRecord => {
  const { act } = exported
  const purposes: Array<RecordPurpose> = receiptEntries(act.receipts).map(([category, receipt]) => ({
    category,
    granted: receipt.value,
    confirmedAt: new Date(receipt.confirmedAt)
  }))
  return {
    schemaVersion: CONSENT_RECORD_SCHEMA_VERSION,
    recordId: act.id,
    principal,
    policyType: act.type,
    events,
    purposes,
    vendors: act.vendorChoice === null
      ? null
      : { grants: act.vendorChoice.grants, confirmedAt: new Date(act.vendorChoice.confirmedAt) },
    notice: {
      policyRuleId: act.policyId,
      policyFingerprint: act.policyFingerprint,
      legalDocument: act.legal === null || act.legalReleaseId === null
        ? null
        : {
          id: act.legalReleaseId,
          version: act.legal.version,
          hash: act.legal.hash,
          effectiveDate: new Date(act.legal.effectiveDate)
        }
    },
    legalBasis: "consent",
    jurisdiction: { model: act.policyId === null ? null : context.rule(act.policyId)?.model ?? null },
    collection: {
      method: exported.surface,
      action: exported.action,
      journeyId: act.journeyId,
      snapshotSource: act.runtimePolicySource
    },
    controller: { domain: act.domain },
    proof: { ipAddress: exported.ipAddress, userAgent: exported.userAgent },
    ...signalsOf(act),
    givenAt: new Date(act.givenAt),
    recordedAt: new Date(act.createdAt)
  }
}
