import { ApiKeyAuth, Unauthorized } from "@svc/api"
import { Effect, Layer, Redacted } from "effect"
import { ApiKeys } from "../access/api-keys.js"
import { RateLimits } from "../limits/rate-limits.js"
import { rateLimited } from "./rate-limit.js"

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
        return Effect.flatMap(
          limits.consumeByKey(matched),
          (wait) => wait === undefined ? Effect.void : rateLimited(wait)
        )
      }
    })
  })
)
