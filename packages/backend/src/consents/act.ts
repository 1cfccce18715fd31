import type { OptionalCategory, Preferences, SaveConsentRequest } from "@svc/schema"
import { OptionalCategories } from "@svc/schema"
import { hash } from "node:crypto"
import { canonicalJson } from "../policy/canonical.js"

/** A receipt as stored: value and confirmation time in epoch milliseconds. */
export interface StoredReceipt {
  readonly value: boolean
  readonly confirmedAt: number
}
export type StoredReceipts = Partial<Record<OptionalCategory, StoredReceipt>>

/** A receipt map's entries in category order, the order `readConsentRow` stores them in. */
export const receiptEntries = (receipts: StoredReceipts): Array<readonly [OptionalCategory, StoredReceipt]> => {
  const entries: Array<readonly [OptionalCategory, StoredReceipt]> = []
  for (const category of OptionalCategories) {
    const receipt = receipts[category]
    if (receipt !== undefined) entries.push([category, receipt])
  }
  return entries
}

/** A vendor choice as stored: the grant map exactly as sent and one confirmation time (epoch ms). */
export interface StoredVendorChoice {
  readonly grants: Readonly<Record<string, boolean>>
  readonly confirmedAt: number
}

/** What one save decided, in the form it is stored and compared. */
export interface ActDecision {
  /** Preferences as applied: as sent, with `necessary` always granted; `null` when none were sent. */
  readonly preferences: Preferences | null
  readonly receipts: StoredReceipts
  readonly vendorChoice: StoredVendorChoice | null
}

/** `necessary` is implied and cannot be refused. */
export const applyPreferences = (preferences: Preferences): Preferences => ({ ...preferences, necessary: true })

/**
 * The decision of a save. Without `receipts`, each optional category of `preferences` gets a
 * receipt confirmed at `givenAt` (a fixed wire choice).
 */
export const decisionOf = (body: SaveConsentRequest): ActDecision => {
  const givenAt = body.givenAt.getTime()
  const receipts: Partial<Record<OptionalCategory, StoredReceipt>> = {}
  if (body.receipts !== undefined) {
    for (const category of OptionalCategories) {
      const receipt = body.receipts[category]
      if (receipt !== undefined)
        receipts[category] = { value: receipt.value, confirmedAt: receipt.confirmedAt.getTime() }
    }
  } else if (body.preferences !== undefined) {
    for (const category of OptionalCategories) {
      const value = body.preferences[category]
      if (value !== undefined) receipts[category] = { value, confirmedAt: givenAt }
    }
  }
  return {
    preferences: body.preferences === undefined ? null : applyPreferences(body.preferences),
    receipts,
    vendorChoice: body.vendorChoice === undefined
      ? null
      : { grants: body.vendorChoice.grants, confirmedAt: body.vendorChoice.confirmedAt.getTime() }
  }
}

const sha256 = (text: string) => hash("sha256", text, "hex")

/**
 * Identity of an act ("the same act", a fixed wire choice): tenant, subject, type, domain, givenAt and, for a
 * legal document, the release accepted. Unique in `svc_consents.act_key`.
 */
export const actKey = (act: {
  readonly tenantId: string
  readonly subjectId: string
  readonly type: string
  readonly domain: string
  readonly givenAt: number
  readonly legalReleaseId: string | null
}): string =>
  sha256(
    canonicalJson(["act/1", act.tenantId, act.subjectId, act.type, act.domain, act.givenAt, act.legalReleaseId ?? ""])
  )

/**
 * Digest of what an act decided (purposes, receipts, vendor grants), independent of key order.
 * Two saves of one act with different digests conflict.
 */
export const actDigest = (decision: ActDecision): string =>
  sha256(canonicalJson(["decision/1", decision.preferences, decision.receipts, decision.vendorChoice]))
