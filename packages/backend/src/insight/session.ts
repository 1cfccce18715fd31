import { createHash, createHmac, timingSafeEqual } from "node:crypto"

const SESSION_SECONDS = 8 * 3600

/**
 * The insight session cookie's value: an expiry and an HMAC of it under a secret derived from
 * the configured API keys. It holds no key, and rotating the keys ends every session.
 */
export const makeInsightSessions = (apiKeys: ReadonlyArray<string>) => {
  const secret = createHash("sha256").update(`svc-insight-session\0${[...apiKeys].sort().join("\0")}`).digest()
  const sign = (expires: number) => createHmac("sha256", secret).update(`insight:${expires}`).digest("base64url")
  const issue = (nowMs: number) => {
    const expires = Math.floor(nowMs / 1000) + SESSION_SECONDS
    return { value: `${expires}.${sign(expires)}`, maxAge: SESSION_SECONDS }
  }
  const verify = (value: string | undefined, nowMs: number): boolean => {
    if (value === undefined) return false
    const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value)
    if (match === null) return false
    const expires = Number(match[1])
    if (expires * 1000 <= nowMs) return false
    const expected = Buffer.from(sign(expires))
    const given = Buffer.from(match[2]!)
    return expected.length === given.length && timingSafeEqual(expected, given)
  }
  return { issue, verify } as const
}
