import { isIP } from "node:net"
import type { ResolvedConfig } from "../config/resolved.js"

/** Zeroes the last IPv4 octet, or everything beyond the first 48 bits of an IPv6 address. */
export const maskIp = (ip: string): string => {
  const v4 = ip.startsWith("::ffff:") && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip
  if (isIP(v4) === 4) return v4.replace(/\.\d+$/, ".0")
  if (isIP(ip) !== 6) return ip
  const [head = "", tail = ""] = ip.split("::")
  const left = head === "" ? [] : head.split(":")
  const right = tail === "" ? [] : tail.split(":")
  const groups = ip.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left
  return `${groups.slice(0, 3).map((g) => g.toLowerCase().replace(/^0+(?=.)/, "")).join(":")}::`
}

const firstAddress = (value: string): string | undefined => {
  const first = value.split(",")[0]?.trim()
  if (first === undefined || first === "") return undefined
  const unbracketed = first.replace(/^\[([^\]]+)\](:\d+)?$/, "$1").replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, "$1")
  return isIP(unbracketed) === 0 ? undefined : unbracketed
}

/**
 * The visitor's IP as svc stores it: read from the configured headers in order (first present and
 * valid wins), else the socket address; masked unless masking is off; `null` when tracking is off.
 */
export const clientIp = (
  settings: ResolvedConfig["ipAddress"],
  headers: Readonly<Record<string, string | undefined>>,
  remoteAddress: string | undefined
): string | null => {
  if (!settings.tracking) return null
  const ip = visitorAddress(settings.headers, headers, remoteAddress)
  if (ip === undefined) return null
  return settings.masking ? maskIp(ip) : ip
}

/**
 * The visitor's address as read, never masked: the first valid one of the configured headers, else
 * the socket's. What `clientIp` stores (masked) and what the IP location lookup reads (whole, and
 * whether or not IPs are recorded: location resolution is separate from IP recording).
 */
export const visitorAddress = (
  names: ReadonlyArray<string>,
  headers: Readonly<Record<string, string | undefined>>,
  remoteAddress: string | undefined
): string | undefined => {
  for (const name of names) {
    const value = headers[name]
    const ip = value === undefined ? undefined : firstAddress(value)
    if (ip !== undefined) return ip
  }
  return remoteAddress === undefined ? undefined : firstAddress(remoteAddress)
}

/**
 * An address the caller hands over itself (`POST /sessions`' `X-SVC-Client-IP`) as svc stores it:
 * the first valid one of the value, masked unless masking is off; `null` when tracking is off.
 */
export const storedIp = (
  settings: Pick<ResolvedConfig["ipAddress"], "tracking" | "masking">,
  value: string | undefined
): string | null => {
  if (!settings.tracking || value === undefined) return null
  const ip = firstAddress(value)
  if (ip === undefined) return null
  return settings.masking ? maskIp(ip) : ip
}
