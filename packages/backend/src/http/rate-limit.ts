import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { InitLimit, ManifestLimit, PublicWriteLimit, RateLimited } from "@svc/api"
import { Effect, Layer } from "effect"
import type { RateLimitGroup } from "../config/resolved.js"
import { RateLimits } from "../limits/rate-limits.js"

/** The 429 of every limited route: the spec's error body, and `Retry-After` in seconds. */
export const rateLimited = (retryAfterSeconds: number) =>
  Effect.zipRight(
    // The contract's error schema cannot carry a header; the response is given it on its way out.
    HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(retryAfterSeconds)))
    ),
    Effect.fail(new RateLimited({ message: `Too many requests: retry in ${retryAfterSeconds} s` }))
  )

const perClientIp = (group: RateLimitGroup) =>
  Effect.map(
    RateLimits,
    (limits) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Effect.flatMap(limits.consumeByIp(group, request), (wait) =>
          wait === undefined ? Effect.void : rateLimited(wait)))
  )

/** The contract's per-IP limits, one middleware per route group (each a no-op unless configured). */
export const RateLimitMiddlewareLive = Layer.mergeAll(
  Layer.effect(PublicWriteLimit, perClientIp("publicWrites")),
  Layer.effect(InitLimit, perClientIp("init")),
  Layer.effect(ManifestLimit, perClientIp("manifest"))
)
