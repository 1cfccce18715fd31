import type { RateLimitGroup, ResolvedRateLimit, ResolvedRateRule } from "./resolved.js"

/** DESIGN.md's defaults: public writes 120 a minute per client IP, administrative routes 600 a minute per key. */
const DEFAULTS: Partial<Record<RateLimitGroup, ResolvedRateRule>> = {
  publicWrites: { limit: 120, windowSeconds: 60 },
  admin: { limit: 600, windowSeconds: 60 }
}

const GROUPS: ReadonlyArray<RateLimitGroup> = ["publicWrites", "admin", "init", "manifest", "scripts"]

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isRule = (u: unknown): u is { limit: number; windowSeconds?: number } =>
  isRecord(u) && typeof u.limit === "number" && (u.windowSeconds === undefined || typeof u.windowSeconds === "number")

/**
 * `rateLimit` with its defaults. The schema checks the rules' shape; this checks the store, whose
 * URL is never repeated in a message (it may carry a password). It runs even when other options
 * are malformed, so every problem is listed at once; problems go to `problems`.
 */
export const resolveRateLimit = (
  options: Record<string, unknown>,
  tenantId: string | undefined,
  problems: Array<string>
): ResolvedRateLimit | undefined => {
  const input = options.rateLimit
  if (!isRecord(input)) return undefined
  let store: ResolvedRateLimit["store"] = { _tag: "Memory" }
  const raw: unknown = input.store
  if (raw === undefined || raw === "memory") {
    // the default
  } else if (isRecord(raw)) {
    const unknownKeys = Object.keys(raw).filter((key) => key !== "redis" && key !== "keyPrefix")
    for (const key of unknownKeys) problems.push(`rateLimit.store.${key}: unknown option`)
    const url = raw.redis
    const keyPrefix = raw.keyPrefix ?? `svc:ratelimit:${tenantId === undefined ? "" : `${tenantId}:`}`
    if (typeof keyPrefix !== "string" || keyPrefix === "") problems.push("rateLimit.store.keyPrefix: must be a non-empty string")
    if (typeof url !== "string" || !isRedisUrl(url)) {
      problems.push("rateLimit.store.redis: must be a redis:// or rediss:// URL")
    } else if (unknownKeys.length === 0 && typeof keyPrefix === "string" && keyPrefix !== "") {
      store = { _tag: "Redis", url, keyPrefix }
    }
  } else {
    problems.push(`rateLimit.store: must be "memory" or { redis: "redis://…" }`)
  }
  const rules: Partial<Record<RateLimitGroup, ResolvedRateRule>> = {}
  for (const group of GROUPS) {
    const rule = input[group]
    if (rule === false) continue
    const resolved = isRule(rule) ? { limit: rule.limit, windowSeconds: rule.windowSeconds ?? 60 } : DEFAULTS[group]
    if (resolved !== undefined) rules[group] = resolved
  }
  const ipAddress = options.ipAddress
  const headers = isRecord(ipAddress) && Array.isArray(ipAddress.ipAddressHeaders) ? ipAddress.ipAddressHeaders : []
  return {
    store,
    rules,
    trustedIpHeaders: headers.filter((h): h is string => typeof h === "string").map((h) => h.toLowerCase())
  }
}

const isRedisUrl = (url: string): boolean => {
  try {
    const parsed = new URL(url)
    return (parsed.protocol === "redis:" || parsed.protocol === "rediss:") && parsed.hostname !== ""
  } catch {
    return false
  }
}
