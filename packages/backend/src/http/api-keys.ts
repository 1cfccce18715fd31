import { Unauthorized, ApiKeyAuth } from "@svc/api"
import { createHash, timingSafeEqual } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { SvcConfig } from "../config/resolved.js"

const digest = (value: string) => createHash("sha256").update(value).digest()

/** Checks bearer keys against `apiKeys` in constant time; with no keys configured nothing passes. */
export class ApiKeys extends Effect.Service<ApiKeys>()("@svc/backend/ApiKeys", {
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const known = config.apiKeys.map(digest)
    const verify = (key: string): boolean => {
      if (key === "" || known.length === 0) return false
      const candidate = digest(key)
      // Compare against every key so timing does not reveal which one (or whether any) matched.
      let matched = false
      for (const k of known) matched = timingSafeEqual(k, candidate) || matched
      return matched
    }
    /** Reads an `Authorization: Bearer <key>` header value. */
    const verifyHeader = (authorization: string | undefined): boolean => {
      if (authorization === undefined) return false
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
      return match !== null && verify(match[1]!)
    }
    return { verify, verifyHeader } as const
  })
}) {}

const unauthorized = new Unauthorized({ message: "A valid API key is required: Authorization: Bearer <API_KEY>" })

/** The bearer security of the administrative endpoints. */
export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.map(ApiKeys, (keys) =>
    ApiKeyAuth.of({
      // The framework calls this even for an empty token; `verify` refuses it.
      apiKey: (token) => keys.verify(Redacted.value(token)) ? Effect.void : Effect.fail(unauthorized)
    }))
)
