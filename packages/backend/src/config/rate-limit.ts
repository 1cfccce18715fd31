import type { RateLimitGroup, ResolvedRateLimit, ResolvedRateRule } from "./resolved.js"
import type { RateLimitOptions } from "./schema.js"

/** The fixed defaults: public writes 120 a minute per client IP, administrative routes 600 a minute per key. */
const DEFAULTS: Partial<Record<RateLimitGroup, ResolvedRateRule>> = {
  publicWrites: { limit: 120, windowSeconds: 60 },
  admin: { limit: 600, windowSeconds: 60 }
}

export const RATE_LIMIT_GROUPS: ReadonlyArray<RateLimitGroup> = ["publicWrites", "admin", "init", "manifest", "scripts"]

/**
 * `rateLimit` (checked by the options schema, which never repeats a Redis URL) with its defaults;
 * `undefined` when the block is not written. `ipAddressHeaders` are the operator's own list.
 */
export const resolveRateLimit = (
  options: typeof RateLimitOptions.Type | undefined,
  tenantId: string | undefined,
  ipAddressHeaders: ReadonlyArray<string> | undefined
): ResolvedRateLimit | undefined => {
  if (options === undefined) return undefined
  const store: ResolvedRateLimit["store"] = options.store === undefined || options.store === "memory"
    ? { _tag: "Memory" }
    : {
      _tag: "Redis",
      url: options.store.redis,
      keyPrefix: options.store.keyPrefix ?? `svc:ratelimit:${tenantId === undefined ? "" : `${tenantId}:`}`
    }
  const rules: Partial<Record<RateLimitGroup, ResolvedRateRule>> = {}
  for (const group of RATE_LIMIT_GROUPS) {
    const rule = options[group]
    if (rule === false) continue
    const resolved = rule === undefined
      ? DEFAULTS[group]
      : { limit: rule.limit, windowSeconds: rule.windowSeconds ?? 60 }
    if (resolved !== undefined) rules[group] = resolved
  }
  return { store, rules, trustedIpHeaders: (ipAddressHeaders ?? []).map((h) => h.toLowerCase()) }
}
