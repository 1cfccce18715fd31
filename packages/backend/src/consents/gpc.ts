import type { GpcProof, OptionalCategory, PolicyPack } from "@svc/schema"
import { propertyOf } from "../codec/guards.js"
import type { ActDecision } from "./act.js"

/**
 * Global Privacy Control on a save: the signal applied when the request says `Sec-GPC: 1` or the
 * policy snapshot from `/init` recorded it. Under the rule's `gpcDenies`, a category the act grants
 * is stored as denied (preferences and receipts alike), and the proof names what was denied and
 * what the act had claimed. Without a known rule the signal is recorded with nothing denied.
 */
export const applyGpc = (
  decision: ActDecision,
  signal: boolean,
  pack: PolicyPack | undefined
): { readonly decision: ActDecision; readonly proof: GpcProof | null } => {
  if (!signal) return { decision, proof: null }
  const denied: ReadonlyArray<OptionalCategory> = pack?.gpcDenies ?? []
  const overridden = denied.filter((c) => decision.preferences?.[c] === true || decision.receipts[c]?.value === true)
  if (overridden.length === 0) return { decision, proof: { denied, overridden } }
  const receipts = { ...decision.receipts }
  for (const c of overridden) {
    const receipt = receipts[c]
    if (receipt !== undefined) receipts[c] = { ...receipt, value: false }
  }
  const preferences = decision.preferences === null ? null : { ...decision.preferences }
  if (preferences !== null) { for (const c of overridden) if (preferences[c] !== undefined) preferences[c] = false }
  return { decision: { ...decision, preferences, receipts }, proof: { denied, overridden } }
}

/** The stored proof column: `NULL` when no signal applied. */
export const encodeGpcProof = (proof: GpcProof | null): string | null => proof === null ? null : JSON.stringify(proof)

const categories = new Set(["measurement", "marketing", "functionality", "experience"])
const isCategoryList = (u: unknown): u is Array<OptionalCategory> =>
  Array.isArray(u) && u.every((c) => typeof c === "string" && categories.has(c))

export const decodeGpcProof = (text: string | null): GpcProof | null => {
  if (text === null) return null
  try {
    const proof: unknown = JSON.parse(text)
    const denied = propertyOf(proof, "denied")
    const overridden = propertyOf(proof, "overridden")
    return isCategoryList(denied) && isCategoryList(overridden) ? { denied, overridden } : null
  } catch {
    return null
  }
}
