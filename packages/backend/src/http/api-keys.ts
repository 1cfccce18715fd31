import { Unauthorized, ApiKeyAuth } from "@svc/api"
import { createHash, timingSafeEqual } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { RateLimits } from "../limits/rate-limits.js"
import { rateLimited } from "./rate-limit.js"

const digest = (value: string) => createHash("sha256").update(value).digest()

/** Checks bearer keys against `apiKeys` in constant time; with no keys configured nothing passes. */
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
    /** Reads an `Authorization: Bearer <key>` header value. */
    const verifyHeader = (authorization: string | undefined): boolean => {
      if (authorization === undefined) return false
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
      return match !== null && verify(match[1]!)
    }
    return { match, verify, verifyHeader } as const
  })
}) {}

const unauthorized = new Unauthorized({ message: "A valid API key is required: Authorization: Bearer <API_KEY>" })

/** The bearer security of the administrative endpoints, and their per-key rate limit. */
export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const limits = yield* RateLimits
    return ApiKeyAuth.of({
      // The framework calls this even for an empty token; `match` refuses it.
      apiKey: (token) => {
        const matched = keys.match(Redacted.value(token))
        if (matched === undefined) return Effect.fail(unauthorized)
        return Effect.flatMap(limits.consumeByKey(matched), (wait) => wait === undefined ? Effect.void : rateLimited(wait))
      }
    })
  })
)
