import type { OptionalCategory, PolicyPack, SubjectChoice, SubjectVendorChoice, Vendor } from "@svc/schema"
import { isLegalDocumentType } from "@svc/schema"
import { receiptEntries, type StoredReceipt } from "./act.js"
import type { StoredConsent } from "./records.js"

/** What "latest policy" is judged against: current legal releases and the manifest's rules. */
export interface PolicyContext {
  readonly currentLegal: ReadonlyMap<string, string>
  readonly rule: (policyId: string) => PolicyPack | undefined
}

const DAY_MS = 86_400_000
const DEFAULT_VALIDITY_DAYS = 365

/**
 * Legal document: the record names the type's current release. Cookie banner: the manifest still
 * has the recorded rule under the recorded fingerprint; a record made without a signed snapshot
 * names no rule and has nothing to be outdated against, so it counts as latest.
 */
export const isLatestPolicy = (consent: StoredConsent, context: PolicyContext): boolean => {
  if (isLegalDocumentType(consent.type)) {
    return consent.legalReleaseId !== null && context.currentLegal.get(consent.type) === consent.legalReleaseId
  }
  if (consent.policyId === null) return true
  return context.rule(consent.policyId)?.fingerprint === consent.policyFingerprint
}

/** Acts in the order they happened: givenAt, then arrival, then id (stable). */
const byAct = (a: StoredConsent, b: StoredConsent) =>
  a.givenAt - b.givenAt || a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * The latest receipt per optional category across the subject's cookie-banner acts (by
 * `confirmedAt`, a tie going to the later act); `null` when no act left a receipt.
 */
export const subjectChoiceOf = (consents: ReadonlyArray<StoredConsent>): SubjectChoice | null => {
  const latest = new Map<OptionalCategory, StoredReceipt>()
  for (const consent of [...consents].sort(byAct)) {
    if (consent.type !== "cookie_banner") continue
    for (const [category, receipt] of receiptEntries(consent.receipts)) {
      const current = latest.get(category)
      if (current === undefined || receipt.confirmedAt >= current.confirmedAt) latest.set(category, receipt)
    }
  }
  if (latest.size === 0) return null
  const categories: Record<string, { value: boolean; confirmedAt: Date }> = {}
  for (const [category, receipt] of latest) {
    categories[category] = { value: receipt.value, confirmedAt: new Date(receipt.confirmedAt) }
  }
  return { categories }
}

/**
 * Spec "Subject vendor choice": the latest act naming a vendor decides it (1, 2); a map's silence
 * is no decision (4); `confirmedAt` is the oldest decision still standing (3); declared vendors no
 * act named follow their category (5), `necessary` granted, an undecided category refused.
 * `null` when no act carried a vendor choice.
 */
export const subjectVendorChoiceOf = (
  consents: ReadonlyArray<StoredConsent>,
  declared: ReadonlyArray<Vendor>,
  choice: SubjectChoice | null
): SubjectVendorChoice | null => {
  const decisions = new Map<string, { grant: boolean; confirmedAt: number }>()
  for (const consent of [...consents].sort(byAct)) {
    if (consent.vendorChoice === null) continue
    for (const [vendor, grant] of Object.entries(consent.vendorChoice.grants)) {
      decisions.set(vendor, { grant, confirmedAt: consent.vendorChoice.confirmedAt })
    }
  }
  if (decisions.size === 0) return null
  // Built with Object.fromEntries: it defines own properties, so no vendor id (not even
  // "__proto__" from an old row) is swallowed by an assignment to the prototype.
  let confirmedAt = Number.POSITIVE_INFINITY
  for (const decision of decisions.values()) confirmedAt = Math.min(confirmedAt, decision.confirmedAt)
  const grants: Record<string, boolean> = Object.fromEntries(
    [...decisions].map(([vendor, decision]) => [vendor, decision.grant])
  )
  const derived: Record<string, boolean> = Object.fromEntries(
    declared
      .filter((vendor) => !decisions.has(vendor.id))
      .map((
        vendor
      ) => [vendor.id, vendor.category === "necessary" ? true : choice?.categories[vendor.category]?.value ?? false])
  )
  return { grants, confirmedAt: new Date(confirmedAt), derived }
}

/**
 * `isValid`: every type considered (the `?type=` filter, else each type the subject has) has a
 * record whose latest act is on the latest policy and, for the cookie banner, still inside the
 * rule's `validityDays` (365 when the record names no rule). No type considered: false.
 */
export const isValidFor = (
  consents: ReadonlyArray<StoredConsent>,
  types: ReadonlyArray<string> | undefined,
  context: PolicyContext,
  now: number
): boolean => {
  const considered = types ?? [...new Set(consents.map((c) => c.type))]
  if (considered.length === 0) return false
  return considered.every((type) => {
    const ofType = consents.filter((c) => c.type === type).sort(byAct)
    const latest = ofType[ofType.length - 1]
    if (latest === undefined || !isLatestPolicy(latest, context)) return false
    if (latest.type !== "cookie_banner") return true
    const days = (latest.policyId === null ? undefined : context.rule(latest.policyId)?.validityDays) ??
      DEFAULT_VALIDITY_DAYS
    return now - latest.givenAt <= days * DAY_MS
  })
}

/** The `?type=a,b` list: trimmed, empty entries dropped; `undefined` when absent or empty. */
export const parseTypeList = (raw: string | undefined): ReadonlyArray<string> | undefined => {
  if (raw === undefined) return undefined
  const types = [...new Set(raw.split(",").map((t) => t.trim()).filter((t) => t !== ""))]
  return types.length === 0 ? undefined : types
}

export { byAct }
