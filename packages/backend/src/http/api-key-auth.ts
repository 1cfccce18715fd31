import { HttpServerRequest } from "@effect/platform"
import { ApiKeyAuth, type RateLimited, Unauthorized } from "@svc/api"
import { Effect, Layer } from "effect"
import { ApiKeys } from "../access/api-keys.js"
import { RateLimits } from "../limits/rate-limits.js"
import { bearerToken } from "./bearer.js"
import { rateLimited } from "./rate-limit.js"

const unauthorized = new Unauthorized({ message: "A valid API key is required: Authorization: Bearer <API_KEY>" })

/** The bearer security of the administrative endpoints, and their per-key rate limit. */
export const ApiKeyAuthLive = Layer.effect(
  ApiKeyAuth,
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const limits = yield* RateLimits
    return ApiKeyAuth.of({
      // The framework's bearer token is whatever follows the header's first seven characters, any
      // scheme (`Basic xKEY` gave `KEY`): the key is read by the one parser every route uses.
      apiKey: () =>
        Effect.flatMap(
          HttpServerRequest.HttpServerRequest,
          (request): Effect.Effect<void, Unauthorized | RateLimited> => {
            const key = bearerToken(request.headers.authorization)
            const matched = key === undefined ? undefined : keys.match(key)
            if (matched === undefined) return Effect.fail(unauthorized)
            return Effect.flatMap(
              limits.consumeByKey(matched),
              (wait) => wait === undefined ? Effect.void : rateLimited(wait)
            )
          }
        )
    })
  })
)
