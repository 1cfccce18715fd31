// An independent reader of TC strings, written for the tests from the TCF v2.2 field table.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

export class BitReader {
  private pos = 0
  constructor(readonly bits: string) {}
  static fromBase64Url(text: string): BitReader {
    let bits = ""
    for (const ch of text) {
      const value = ALPHABET.indexOf(ch)
      if (value < 0) throw new Error(`not base64url: ${ch}`)
      bits += value.toString(2).padStart(6, "0")
    }
    return new BitReader(bits)
  }
  int(width: number): number {
    const slice = this.bits.slice(this.pos, this.pos + width)
    if (slice.length < width) throw new Error(`ran out of bits at ${this.pos}`)
    this.pos += width
    return parseInt(slice, 2)
  }
  bool(): boolean {
    return this.int(1) === 1
  }
  letters(): string {
    return String.fromCharCode(65 + this.int(6), 65 + this.int(6))
  }
  field(width: number): Array<number> {
    const out: Array<number> = []
    for (let i = 1; i <= width; i++) if (this.bool()) out.push(i)
    return out
  }
  get position(): number {
    return this.pos
  }
  rest(): string {
    return this.bits.slice(this.pos)
  }
}

export interface DecodedVendors {
  maxVendorId: number
  isRangeEncoding: boolean
  ids: Array<number>
}

const vendors = (r: BitReader): DecodedVendors => {
  const maxVendorId = r.int(16)
  const isRangeEncoding = r.bool()
  if (!isRangeEncoding) return { maxVendorId, isRangeEncoding, ids: r.field(maxVendorId) }
  const ids: Array<number> = []
  const entries = r.int(12)
  for (let i = 0; i < entries; i++) {
    const isRange = r.bool()
    const start = r.int(16)
    const end = isRange ? r.int(16) : start
    for (let id = start; id <= end; id++) ids.push(id)
  }
  return { maxVendorId, isRangeEncoding, ids }
}

/** The Disclosed Vendors segment (segment type 1), if the string carries one. */
export const decodeDisclosedVendors = (tcString: string): (DecodedVendors & { segmentType: number }) | undefined => {
  for (const segment of tcString.split(".").slice(1)) {
    const r = BitReader.fromBase64Url(segment)
    const segmentType = r.int(3)
    if (segmentType === 1) return { segmentType, ...vendors(r) }
  }
  return undefined
}

export const decodeCore = (tcString: string) => {
  const r = BitReader.fromBase64Url(tcString.split(".")[0]!)
  const decoded = {
    version: r.int(6),
    created: r.int(36),
    lastUpdated: r.int(36),
    cmpId: r.int(12),
    cmpVersion: r.int(12),
    consentScreen: r.int(6),
    consentLanguage: r.letters(),
    vendorListVersion: r.int(12),
    tcfPolicyVersion: r.int(6),
    isServiceSpecific: r.bool(),
    useNonStandardTexts: r.bool(),
    specialFeatureOptins: r.field(12),
    purposesConsent: r.field(24),
    purposesLITransparency: r.field(24),
    purposeOneTreatment: r.bool(),
    publisherCC: r.letters(),
    vendorConsents: vendors(r),
    vendorLegitimateInterests: vendors(r),
    numPubRestrictions: r.int(12)
  }
  return { ...decoded, trailing: r.rest() }
}
