// How svc categories stand for TCF purposes, and the TC model built from a consent state.
import type { RuntimeContext } from "../runtime/runtime.js"
import type { Category, ConsentState, Gvl, InitResponse } from "../runtime/types.js"
import type { TcModel } from "./tc-string.js"

/**
 * TCF purposes 2 to 11 by category. Purpose 1 (store and/or access information on a device) is
 * granted when any optional category is, since every other purpose needs it.
 */
export const PURPOSE_CATEGORY: Readonly<Record<number, Category>> = {
  2: "marketing",
  3: "marketing",
  4: "marketing",
  5: "experience",
  6: "experience",
  7: "marketing",
  8: "measurement",
  9: "measurement",
  10: "measurement",
  11: "experience"
}

/** Purposes TCF v2.2 allows on legitimate interest. */
export const LI_PURPOSES: ReadonlyArray<number> = [2, 7, 8, 9, 10, 11]

export const purposesOf = (category: Category): Array<number> =>
  Object.keys(PURPOSE_CATEGORY)
    .map(Number)
    .filter((p) => PURPOSE_CATEGORY[p] === category)

export const grantedPurposes = (state: ConsentState, offered: ReadonlyArray<Category>): Array<number> => {
  const out = Object.keys(PURPOSE_CATEGORY)
    .map(Number)
    .filter((p) => offered.includes(PURPOSE_CATEGORY[p]!) && state.preferences[PURPOSE_CATEGORY[p]!])
  return out.length > 0 ? [1, ...out] : []
}

const liPurposesDeclared = (gvl: Gvl): Set<number> => {
  const out = new Set<number>()
  for (const key of Object.keys(gvl.vendors)) for (const p of gvl.vendors[key]!.legIntPurposes ?? []) out.add(p)
  return out
}

/**
 * The TC model of a choice. A purpose whose category the visitor turned off counts as an objection
 * to its legitimate interest; vendors keep their LI bit for the purposes still transparent.
 */
export const tcModel = (
  init: InitResponse & { gvl: Gvl },
  state: ConsentState,
  config: RuntimeContext["config"],
  givenAt: number
): TcModel => {
  const gvl = init.gvl
  const offered = init.policy?.categories ?? []
  const declared = liPurposesDeclared(gvl)
  const liTransparency = LI_PURPOSES.filter(
    (p) =>
      declared.has(p) && offered.includes(PURPOSE_CATEGORY[p]!) && state.preferences[PURPOSE_CATEGORY[p]!] !== false
  )
  const vendorConsents: Array<number> = []
  const vendorLI: Array<number> = []
  const disclosed: Array<number> = []
  for (const key of Object.keys(gvl.vendors)) {
    const v = gvl.vendors[key]!
    if (v.deletedDate) continue
    disclosed.push(v.id)
    if (state.vendors[String(v.id)] === true) vendorConsents.push(v.id)
    if ((v.legIntPurposes ?? []).some((p) => liTransparency.includes(p))) vendorLI.push(v.id)
  }
  const language = (init.language ?? "en").slice(0, 2)
  return {
    created: givenAt,
    lastUpdated: givenAt,
    cmpId: init.iab?.cmpId ?? 0,
    cmpVersion: config.iab?.cmpVersion ?? 1,
    consentScreen: config.iab?.consentScreen ?? 1,
    consentLanguage: /^[a-z]{2}$/i.test(language) ? language : "en",
    vendorListVersion: gvl.vendorListVersion,
    // TCF v2.2 is policy version 4; a list that names its own wins.
    tcfPolicyVersion: gvl.tcfPolicyVersion ?? 4,
    isServiceSpecific: true,
    useNonStandardTexts: false,
    specialFeatureOptins: [],
    purposesConsent: grantedPurposes(state, offered),
    purposesLITransparency: liTransparency,
    purposeOneTreatment: false,
    publisherCC: config.iab?.publisherCC ?? "AA",
    vendorConsents,
    vendorLegitimateInterests: vendorLI,
    disclosedVendors: disclosed
  }
}
