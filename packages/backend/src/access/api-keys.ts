import { createHash, timingSafeEqual } from "node:crypto"
import { Effect } from "effect"
import { SvcConfig } from "../config/resolved.js"

const digest = (value: string) => createHash("sha256").update(value).digest()

/**
 * The configured API keys, checked in constant time; with no keys configured nothing passes. It
 * knows keys, not headers: `http/bearer.ts` reads the `Authorization` header.
 */
export class ApiKeys extends Effect.Service<ApiKeys>()("@svc/backend/ApiKeys", {
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const known = config.apiKeys.map(digest)
    /** A short id of the matching configured key (a prefix of its SHA-256, never the key), or `undefined`. */
    const match = (key: string): string | undefined => {
      if (key === "" || known.length === 0) return undefined
      const candidate = digest(key)
      // Compare against every key so timing does not reveal which one (or whether any) matched.
      let matched: Buffer | undefined
      for (const k of known) if (timingSafeEqual(k, candidate)) matched = k
      return matched?.toString("hex").slice(0, 16)
    }
    const verify = (key: string): boolean => match(key) !== undefined
    return { match, verify } as const
  })
}) {}
