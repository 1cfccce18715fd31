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
  let ip: string | undefined
  for (const name of settings.headers) {
    const value = headers[name]
    if (value !== undefined && (ip = firstAddress(value)) !== undefined) break
  }
  ip ??= remoteAddress === undefined ? undefined : firstAddress(remoteAddress)
  if (ip === undefined) return null
  return settings.masking ? maskIp(ip) : ip
}
