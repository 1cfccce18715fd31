// TCF v2.2 TC string: the core segment, and the Disclosed Vendors segment when vendors were shown
// (no publisher-TC segment: svc asks for no publisher purposes).
import { BitWriter } from "./bit-writer.js"

export interface TcModel {
  /** Epoch milliseconds; encoded as deciseconds. */
  created: number
  lastUpdated: number
  cmpId: number
  cmpVersion: number
  consentScreen: number
  consentLanguage: string
  vendorListVersion: number
  tcfPolicyVersion: number
  isServiceSpecific: boolean
  useNonStandardTexts: boolean
  specialFeatureOptins: ReadonlyArray<number>
  purposesConsent: ReadonlyArray<number>
  purposesLITransparency: ReadonlyArray<number>
  purposeOneTreatment: boolean
  publisherCC: string
  vendorConsents: ReadonlyArray<number>
  vendorLegitimateInterests: ReadonlyArray<number>
  /** Vendors shown to the visitor; written as the Disclosed Vendors segment when present. */
  disclosedVendors?: ReadonlyArray<number>
}

/** Consecutive runs of ids: `[1,2,3,7]` gives `[[1,3],[7,7]]`. */
export const ranges = (ids: ReadonlyArray<number>): Array<[number, number]> => {
  const sorted = Array.from(new Set(ids)).sort((a, b) => a - b)
  const out: Array<[number, number]> = []
  for (const id of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && last[1] === id - 1) last[1] = id
    else out.push([id, id])
  }
  return out
}

/** MaxVendorId, then a bit field or a range list, whichever is shorter (ties go to the bit field). */
export const vendorSection = (ids: ReadonlyArray<number>): BitWriter => {
  const max = ids.reduce((m, id) => Math.max(m, id), 0)
  const runs = ranges(ids)
  const field = new BitWriter().bool(false).field(new Set(ids), max)
  const range = new BitWriter().bool(true).int(runs.length, 12)
  for (const [start, end] of runs) {
    range.bool(start !== end).int(start, 16)
    if (start !== end) range.int(end, 16)
  }
  return new BitWriter().int(max, 16).append(range.length < field.length ? range : field)
}

export const encodeTcString = (m: TcModel): string => {
  const w = new BitWriter()
    .int(2, 6)
    .int(Math.round(m.created / 100), 36)
    .int(Math.round(m.lastUpdated / 100), 36)
    .int(m.cmpId, 12)
    .int(m.cmpVersion, 12)
    .int(m.consentScreen, 6)
    .letters(m.consentLanguage)
    .int(m.vendorListVersion, 12)
    .int(m.tcfPolicyVersion, 6)
    .bool(m.isServiceSpecific)
    .bool(m.useNonStandardTexts)
    .field(new Set(m.specialFeatureOptins), 12)
    .field(new Set(m.purposesConsent), 24)
    .field(new Set(m.purposesLITransparency), 24)
    .bool(m.purposeOneTreatment)
    .letters(m.publisherCC)
    .append(vendorSection(m.vendorConsents))
    .append(vendorSection(m.vendorLegitimateInterests))
    .int(0, 12) // NumPubRestrictions
  const core = w.toBase64Url()
  if (m.disclosedVendors === undefined) return core
  // SegmentType 1 = Disclosed Vendors, then a vendor section without the LI half.
  return `${core}.${new BitWriter().int(1, 3).append(vendorSection(m.disclosedVendors)).toBase64Url()}`
}
