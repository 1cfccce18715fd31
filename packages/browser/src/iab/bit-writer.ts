// Bits for the TC string, written most significant bit first, read out as base64url.

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

export class BitWriter {
  private bits = ""

  get length(): number {
    return this.bits.length
  }

  int(value: number, width: number): this {
    if (!Number.isInteger(value) || value < 0 || value >= 2 ** width) {
      throw new RangeError(`${value} does not fit in ${width} bits`)
    }
    this.bits += value.toString(2).padStart(width, "0")
    return this
  }

  bool(value: boolean): this {
    this.bits += value ? "1" : "0"
    return this
  }

  /** Bits 1..width: bit i is set when `ids` has i. */
  field(ids: ReadonlySet<number>, width: number): this {
    for (let i = 1; i <= width; i++) this.bits += ids.has(i) ? "1" : "0"
    return this
  }

  /** Two letters, each 6 bits with A = 0. */
  letters(code: string): this {
    const upper = code.toUpperCase()
    if (!/^[A-Z]{2}$/.test(upper)) throw new RangeError(`not a two-letter code: ${code}`)
    return this.int(upper.charCodeAt(0) - 65, 6).int(upper.charCodeAt(1) - 65, 6)
  }

  append(other: BitWriter): this {
    this.bits += other.bits
    return this
  }

  /** Padded with zeros to whole bytes, then 6 bits per character, without `=` padding. */
  toBase64Url(): string {
    let bits = this.bits
    bits += "0".repeat((8 - (bits.length % 8)) % 8)
    bits += "0".repeat((6 - (bits.length % 6)) % 6)
    let out = ""
    for (let i = 0; i < bits.length; i += 6) out += BASE64URL[parseInt(bits.slice(i, i + 6), 2)]
    return out
  }
}
