import type { ConsentRecord, GpcProof, Preferences } from "@svc/schema"
import { ConsentId, OptionalCategories, RuntimePolicySource, SubjectId } from "@svc/schema"
import { isOneOf } from "../codec/guards.js"
import type { StoredReceipts, StoredVendorChoice } from "./act.js"
import { decodeGpcProof } from "./gpc.js"
import { readSectionIds } from "./signal-strings.js"
import type { ConsentRow } from "./repository.js"

/** A consent row with its JSON columns read. `readable` is false when one of them could not be. */
export interface StoredConsent {
  readonly id: ConsentId
  readonly subjectId: SubjectId
  readonly digest: string
  readonly type: string
  readonly domain: string
  readonly givenAt: number
  readonly createdAt: number
  readonly preferences: Preferences | null
  readonly receipts: StoredReceipts
  readonly vendorChoice: StoredVendorChoice | null
  readonly readable: boolean
  readonly policyId: string | null
  readonly policyFingerprint: string | null
  readonly runtimePolicySource: RuntimePolicySource | null
  readonly legalReleaseId: string | null
  readonly journeyId: string | null
  readonly legal: { readonly version: string; readonly hash: string; readonly effectiveDate: number } | null
  readonly gpc: GpcProof | null
  readonly gppString: string | null
  readonly gppSectionIds: ReadonlyArray<number> | undefined
  readonly tcString: string | null
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const isTime = (u: unknown): u is number => typeof u === "number" && Number.isSafeInteger(u) && u >= 0
const isBooleanRecord = (u: Record<string, unknown>): u is Record<string, boolean> =>
  Object.values(u).every((v) => typeof v === "boolean")

const parse = (text: string | null): { ok: boolean; value: unknown } => {
  if (text === null) return { ok: true, value: null }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false, value: null }
  }
}

const readPreferences = (u: unknown): Preferences | null | undefined => {
  if (u === null) return null
  return isRecord(u) && isBooleanRecord(u) ? u : undefined
}

const readReceipts = (u: unknown): StoredReceipts | undefined => {
  if (u === null) return {}
  if (!isRecord(u)) return undefined
  const receipts: Record<string, { value: boolean; confirmedAt: number }> = {}
  for (const category of OptionalCategories) {
    const r = u[category]
    if (r === undefined) continue
    if (!isRecord(r) || typeof r.value !== "boolean" || !isTime(r.confirmedAt)) return undefined
    receipts[category] = { value: r.value, confirmedAt: r.confirmedAt }
  }
  return receipts
}

const readVendorChoice = (u: unknown): StoredVendorChoice | null | undefined => {
  if (u === null) return null
  if (!isRecord(u) || !isRecord(u.grants) || !isTime(u.confirmedAt)) return undefined
  if (!isBooleanRecord(u.grants)) return undefined
  return { grants: u.grants, confirmedAt: u.confirmedAt }
}

/** Ids of rows svc wrote: checked by their schemas when written, not again for each row read (an export reads millions). */
const storedId = { disableValidation: true } as const

export const readConsentRow = (row: ConsentRow): StoredConsent => {
  const p = parse(row.preferences)
  const r = parse(row.receipts)
  const v = parse(row.vendor_choice)
  const preferences = p.ok ? readPreferences(p.value) : undefined
  const receipts = r.ok ? readReceipts(r.value) : undefined
  const vendorChoice = v.ok ? readVendorChoice(v.value) : undefined
  return {
    id: ConsentId.make(row.id, storedId),
    subjectId: SubjectId.make(row.subject_id, storedId),
    digest: row.act_digest,
    type: row.type,
    domain: row.domain,
    givenAt: Number(row.given_at),
    createdAt: Number(row.created_at),
    preferences: preferences ?? null,
    receipts: receipts ?? {},
    vendorChoice: vendorChoice ?? null,
    readable: preferences !== undefined && receipts !== undefined && vendorChoice !== undefined,
    policyId: row.policy_id,
    policyFingerprint: row.policy_fingerprint,
    runtimePolicySource: isOneOf(RuntimePolicySource.literals, row.runtime_policy_source)
      ? row.runtime_policy_source
      : null,
    legalReleaseId: row.legal_release_id,
    journeyId: row.journey_id,
    legal: row.legal_version !== null && row.legal_hash !== null && row.legal_effective_date !== null
      ? { version: row.legal_version, hash: row.legal_hash, effectiveDate: Number(row.legal_effective_date) }
      : null,
    gpc: decodeGpcProof(row.gpc),
    gppString: row.gpp_string,
    gppSectionIds: readSectionIds(row.gpp_section_ids),
    tcString: row.tc_string
  }
}

export const toConsentRecord = (consent: StoredConsent, isLatestPolicy: boolean): ConsentRecord => {
  const receipts: Record<string, { value: boolean; confirmedAt: Date }> = {}
  for (const [category, receipt] of Object.entries(consent.receipts)) {
    receipts[category] = { value: receipt.value, confirmedAt: new Date(receipt.confirmedAt) }
  }
  return {
    consentId: consent.id,
    type: consent.type,
    domain: consent.domain,
    givenAt: new Date(consent.givenAt),
    createdAt: new Date(consent.createdAt),
    preferences: consent.preferences,
    receipts,
    vendorChoice: consent.vendorChoice === null
      ? null
      : { grants: consent.vendorChoice.grants, confirmedAt: new Date(consent.vendorChoice.confirmedAt) },
    isLatestPolicy,
    policyId: consent.policyId ?? consent.legalReleaseId,
    policyFingerprint: consent.policyFingerprint,
    policyVersion: consent.legal?.version ?? null,
    policyHash: consent.legal?.hash ?? null,
    policyEffectiveDate: consent.legal === null ? null : new Date(consent.legal.effectiveDate),
    runtimePolicySource: consent.runtimePolicySource,
    journeyId: consent.journeyId,
    ...(consent.gpc === null ? {} : { gpc: consent.gpc }),
    ...(consent.gppString === null ? {} : { gppString: consent.gppString }),
    ...(consent.gppSectionIds === undefined ? {} : { gppSectionIds: consent.gppSectionIds }),
    ...(consent.tcString === null ? {} : { tcString: consent.tcString })
  }
}
