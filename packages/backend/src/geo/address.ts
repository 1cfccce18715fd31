/*
 * An IP address as the location table's keys: IPv4 as its 32-bit value, IPv6 as its first 64 bits
 * (two 32-bit words). IPv4-mapped IPv6 (`::ffff:1.2.3.4`, what a dual-stack socket reports) is
 * read as the IPv4 address. Parsed by hand because the lookup budget is a few microseconds and a
 * general parser (ipaddr.js: ~25 µs with its range check) is far above it; the input has already
 * been checked by `net.isIP` where svc derives the client IP.
 */

export type TableKey =
  | { readonly family: 4; readonly address: number }
  | { readonly family: 6; readonly high: number; readonly low: number }

const ipv4Value = (text: string): number | null => {
  let value = 0
  let part = 0
  let digits = 0
  let dots = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 46) {
      if (digits === 0 || part > 255) return null
      value = value * 256 + part
      part = 0
      digits = 0
      dots++
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + (c - 48)
      digits++
    } else return null
  }
  if (dots !== 3 || digits === 0 || part > 255) return null
  return value * 256 + part
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail counts as two), or null. */
const ipv6Groups = (text: string): Array<number> | null => {
  const zone = text.indexOf("%")
  const s = zone < 0 ? text : text.slice(0, zone)
  const gap = s.indexOf("::")
  if (gap >= 0 && s.indexOf("::", gap + 1) >= 0) return null
  const parse = (part: string): Array<number> | null => {
    if (part === "") return []
    const out: Array<number> = []
    const pieces = part.split(":")
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = ipv4Value(piece)
        if (v4 === null) return null
        out.push(v4 >>> 16, v4 & 0xffff)
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return null
        out.push(parseInt(piece, 16))
      }
    }
    return out
  }
  if (gap < 0) {
    const groups = parse(s)
    return groups !== null && groups.length === 8 ? groups : null
  }
  const head = parse(s.slice(0, gap))
  const tail = parse(s.slice(gap + 2))
  if (head === null || tail === null || head.length + tail.length > 7) return null
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail]
}

/** The table key of an address, or `null` when it is not an IP address. */
export const tableKey = (ip: string): TableKey | null => {
  if (!ip.includes(":")) {
    const address = ipv4Value(ip)
    return address === null ? null : { family: 4, address }
  }
  const g = ipv6Groups(ip)
  if (g === null) return null
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff)
    return { family: 4, address: g[6]! * 65536 + g[7]! }
  return { family: 6, high: g[0]! * 65536 + g[1]!, low: g[2]! * 65536 + g[3]! }
}
