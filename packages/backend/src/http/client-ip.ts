import { firstAddress, maskIp } from "../access/ip-address.js"
import type { ResolvedConfig } from "../config/resolved.js"

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
  return storedAddress(settings, visitorAddress(settings.headers, headers, remoteAddress))
}

/** The visitor's address (`visitorAddress`, already read) as svc stores it: masked unless masking is off; `null` when tracking is off. */
export const storedAddress = (
  settings: Pick<ResolvedConfig["ipAddress"], "tracking" | "masking">,
  address: string | undefined
): string | null => {
  if (!settings.tracking || address === undefined) return null
  return settings.masking ? maskIp(address) : address
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
