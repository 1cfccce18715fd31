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

/**
 * The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail counts as two), or null. One pass
 * over the characters: groups before `::` fill from the front, groups after it are shifted to the
 * back once their number is known.
 */
const ipv6Groups = (text: string): Array<number> | null => {
  const groups = [0, 0, 0, 0, 0, 0, 0, 0]
  let count = 0
  let gap = -1
  let value = 0
  let digits = 0
  let start = 0
  let end = text.indexOf("%")
  if (end < 0) end = text.length
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c === 58) {
      if (i + 1 < end && text.charCodeAt(i + 1) === 58) {
        if (gap >= 0) return null
        if (digits > 0) {
          if (count === 8) return null
          groups[count++] = value
        } else if (i !== 0) return null
        gap = count
        i++
      } else {
        if (digits === 0 || count === 8) return null
        groups[count++] = value
      }
      value = 0
      digits = 0
      start = i + 1
    } else if (c === 46) {
      const v4 = ipv4Value(text.slice(start, end))
      if (v4 === null || count > 6) return null
      groups[count++] = Math.floor(v4 / 65536)
      groups[count++] = v4 % 65536
      digits = 0
      break
    } else {
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1
      if (d < 0 || digits === 4) return null
      value = value * 16 + d
      digits++
    }
  }
  if (digits > 0) {
    if (count === 8) return null
    groups[count++] = value
  } else if (gap !== count && (count === 0 || text.charCodeAt(end - 1) === 58)) {
    // a trailing single `:` (an empty last group) is not an address; `::` at the end is
    if (gap < 0) return null
  }
  if (gap < 0) return count === 8 ? groups : null
  if (count === 8) return null
  const tail = count - gap
  for (let k = 0; k < tail; k++) {
    groups[7 - k] = groups[count - 1 - k]!
    groups[count - 1 - k] = 0
  }
  return groups
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
