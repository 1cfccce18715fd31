import { describe, expect, it } from "vitest"
import { BitWriter } from "../src/iab/bit-writer.js"
import { encodeTcString, ranges, vendorSection, type TcModel } from "../src/iab/tc-string.js"
import { grantedPurposes, tcModel } from "../src/iab/purposes.js"
import { preferencesOf } from "../src/runtime/policy.js"
import type { ConsentState, InitResponse } from "../src/runtime/types.js"
import { BitReader, decodeCore, decodeDisclosedVendors } from "./tc-decoder.js"

const model = (overrides: Partial<TcModel> = {}): TcModel => ({
  created: Date.UTC(2025, 5, 1, 12, 0, 0, 0),
  lastUpdated: Date.UTC(2025, 5, 2, 8, 30, 0, 0),
  cmpId: 300,
  cmpVersion: 7,
  consentScreen: 2,
  consentLanguage: "de",
  vendorListVersion: 142,
  tcfPolicyVersion: 5,
  isServiceSpecific: true,
  useNonStandardTexts: false,
  specialFeatureOptins: [1],
  purposesConsent: [1, 2, 3, 4, 7, 9, 10],
  purposesLITransparency: [2, 8],
  purposeOneTreatment: false,
  publisherCC: "FR",
  vendorConsents: [1, 2, 4, 755],
  vendorLegitimateInterests: [2, 10],
  ...overrides
})

describe("BitWriter", () => {
  it("writes fixed-width integers most significant bit first", () => {
    const w = new BitWriter().int(2, 6).int(5, 3).bool(true)
    expect(BitReader.fromBase64Url(w.toBase64Url()).bits.startsWith("0000101011")).toBe(true)
  })
  it("refuses values that do not fit", () => {
    expect(() => new BitWriter().int(64, 6)).toThrow(RangeError)
    expect(() => new BitWriter().letters("E1")).toThrow(RangeError)
  })
  it("pads to whole bytes before base64url, without '=' padding", () => {
    // 10 bits -> 2 bytes -> 3 characters.
    const text = new BitWriter().int(1023, 10).toBase64Url()
    expect(text).toHaveLength(3)
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/)
  })
})

describe("encodeTcString", () => {
  it("encodes every core field in the TCF v2.2 order and widths", () => {
    const m = model()
    const tc = encodeTcString(m)
    expect(tc).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(tc.startsWith("C")).toBe(true) // version 2 in the first six bits: 000010 -> 'C'
    const d = decodeCore(tc)
    expect(d.version).toBe(2)
    expect(d.created).toBe(Math.round(m.created / 100))
    expect(d.lastUpdated).toBe(Math.round(m.lastUpdated / 100))
    expect(d.cmpId).toBe(300)
    expect(d.cmpVersion).toBe(7)
    expect(d.consentScreen).toBe(2)
    expect(d.consentLanguage).toBe("DE")
    expect(d.vendorListVersion).toBe(142)
    expect(d.tcfPolicyVersion).toBe(5)
    expect(d.isServiceSpecific).toBe(true)
    expect(d.useNonStandardTexts).toBe(false)
    expect(d.specialFeatureOptins).toEqual([1])
    expect(d.purposesConsent).toEqual([1, 2, 3, 4, 7, 9, 10])
    expect(d.purposesLITransparency).toEqual([2, 8])
    expect(d.purposeOneTreatment).toBe(false)
    expect(d.publisherCC).toBe("FR")
    expect(d.vendorConsents.ids).toEqual([1, 2, 4, 755])
    expect(d.vendorConsents.maxVendorId).toBe(755)
    expect(d.vendorLegitimateInterests.ids).toEqual([2, 10])
    expect(d.numPubRestrictions).toBe(0)
    // Only zero padding may follow the core segment.
    expect(d.trailing).toMatch(/^0*$/)
    expect(d.trailing.length).toBeLessThan(14)
  })

  it("puts the fixed fields at their documented bit offsets", () => {
    const r = BitReader.fromBase64Url(encodeTcString(model()))
    // Version 0-5, Created 6-41, LastUpdated 42-77, CmpId 78-89, CmpVersion 90-101, ConsentScreen 102-107,
    // ConsentLanguage 108-119, VendorListVersion 120-131, TcfPolicyVersion 132-137, IsServiceSpecific 138,
    // UseNonStandardTexts 139, SpecialFeatureOptIns 140-151, PurposesConsent 152-175,
    // PurposesLITransparency 176-199, PurposeOneTreatment 200, PublisherCC 201-212, vendors from 213.
    const at = (from: number, width: number) => parseInt(r.bits.slice(from, from + width), 2)
    expect(at(0, 6)).toBe(2)
    expect(at(78, 12)).toBe(300)
    expect(at(120, 12)).toBe(142)
    expect(at(132, 6)).toBe(5)
    expect(r.bits[138]).toBe("1")
    expect(r.bits.slice(140, 152)).toBe("100000000000")
    expect(r.bits.slice(152, 176)).toBe("111100101100000000000000")
    expect(at(201, 6)).toBe("F".charCodeAt(0) - 65)
    expect(at(213, 16)).toBe(755)
  })

  it("uses a range list when it is shorter than the bit field, and a bit field otherwise", () => {
    const sparse = decodeCore(encodeTcString(model({ vendorConsents: [3, 4, 5, 6, 900] })))
    expect(sparse.vendorConsents.isRangeEncoding).toBe(true)
    expect(sparse.vendorConsents.ids).toEqual([3, 4, 5, 6, 900])
    const dense = decodeCore(encodeTcString(model({ vendorConsents: [1, 3, 5, 7, 9, 11] })))
    expect(dense.vendorConsents.isRangeEncoding).toBe(false)
    expect(dense.vendorConsents.ids).toEqual([1, 3, 5, 7, 9, 11])
  })

  it("appends a Disclosed Vendors segment (type 1) after a dot when vendors were shown", () => {
    expect(encodeTcString(model())).not.toContain(".")
    const tc = encodeTcString(model({ disclosedVendors: [1, 2, 4, 755, 756] }))
    const [core, disclosed] = tc.split(".")
    expect(core).toBe(encodeTcString(model()))
    expect(disclosed).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(decodeDisclosedVendors(tc)).toEqual({
      segmentType: 1,
      maxVendorId: 756,
      isRangeEncoding: true,
      ids: [1, 2, 4, 755, 756]
    })
  })

  it("encodes an empty vendor set as MaxVendorId 0 and an empty bit field", () => {
    const d = decodeCore(
      encodeTcString(model({ vendorConsents: [], vendorLegitimateInterests: [], purposesConsent: [] }))
    )
    expect(d.vendorConsents).toEqual({ maxVendorId: 0, isRangeEncoding: false, ids: [] })
    expect(d.vendorLegitimateInterests).toEqual({ maxVendorId: 0, isRangeEncoding: false, ids: [] })
    expect(d.purposesConsent).toEqual([])
  })

  it("writes range entries as single ids or start/end pairs", () => {
    expect(ranges([9, 1, 2, 3, 5, 5])).toEqual([
      [1, 3],
      [5, 5],
      [9, 9]
    ])
    const r = BitReader.fromBase64Url(vendorSection([100, 101, 102, 2000]).toBase64Url())
    expect(r.int(16)).toBe(2000)
    expect(r.bool()).toBe(true)
    expect(r.int(12)).toBe(2)
    expect([r.bool(), r.int(16), r.int(16)]).toEqual([true, 100, 102])
    expect([r.bool(), r.int(16)]).toEqual([false, 2000])
  })
})

describe("tcModel", () => {
  const init = {
    policyResolution: { status: "matched" },
    policy: { id: "eu", model: "iab", categories: ["measurement", "marketing", "experience"], fingerprint: "fp1" },
    language: "fr",
    iab: { enabled: true, cmpId: 42 },
    gvl: {
      vendorListVersion: 77,
      tcfPolicyVersion: 5,
      purposes: { "1": { id: 1, name: "Store and/or access information on a device" } },
      vendors: {
        "8": { id: 8, name: "Ads Co", purposes: [1, 2, 3, 4], legIntPurposes: [7] },
        "12": { id: 12, name: "Stats Co", purposes: [1, 8], legIntPurposes: [9, 10] },
        "40": { id: 40, name: "Gone Co", purposes: [1], deletedDate: "2024-01-01T00:00:00Z" }
      }
    }
  } as unknown as InitResponse & { gvl: NonNullable<InitResponse["gvl"]> }
  const state = (measurement: boolean, marketing: boolean, vendors: Record<string, boolean>): ConsentState => ({
    status: "given",
    preferences: preferencesOf((c) => (c === "measurement" ? measurement : c === "marketing" ? marketing : false)),
    givenAt: 1_750_000_000_000,
    action: "custom",
    gpc: false,
    model: "iab",
    policyId: "eu",
    fingerprint: "fp1",
    vendors
  })

  it("maps categories to purposes, vendors to consents, and the list's versions into the string", () => {
    const m = tcModel(init, state(true, false, { "8": false, "12": true }), {}, 1_750_000_000_000)
    expect(m.purposesConsent).toEqual([1, 8, 9, 10])
    // Marketing off objects to purpose 7 on legitimate interest; measurement keeps 9 and 10.
    expect(m.purposesLITransparency).toEqual([9, 10])
    expect(m.vendorConsents).toEqual([12])
    expect(m.vendorLegitimateInterests).toEqual([12])
    const d = decodeCore(encodeTcString(m))
    expect(d.cmpId).toBe(42)
    expect(d.vendorListVersion).toBe(77)
    expect(d.tcfPolicyVersion).toBe(5)
    expect(d.consentLanguage).toBe("FR")
    expect(d.publisherCC).toBe("AA")
    expect(d.created).toBe(17_500_000_000)
    expect(decodeDisclosedVendors(encodeTcString(m))!.ids).toEqual([8, 12])
  })

  it("grants nothing, purpose 1 included, when every category is off", () => {
    expect(grantedPurposes(state(false, false, {}), ["measurement", "marketing"])).toEqual([])
    const m = tcModel(init, state(false, false, {}), { iab: { publisherCC: "DE" } }, 1_750_000_000_000)
    const d = decodeCore(encodeTcString(m))
    expect(d.purposesConsent).toEqual([])
    expect(d.vendorConsents.ids).toEqual([])
    expect(d.publisherCC).toBe("DE")
  })
})
