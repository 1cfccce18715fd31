import { HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { InitLimit, ManifestLimit, PublicWriteLimit, RateLimited } from "@svc/api"
import { Effect, Layer } from "effect"
import { type RateLimitGroup, type ResolvedConfig, SvcConfig } from "../config/resolved.js"
import { type RateCheck, RateLimits } from "../limits/rate-limits.js"
import { clientIp } from "./client-ip.js"

/** The 429 of every limited route: the spec's error body, and `Retry-After` in seconds. */
export const rateLimited = (retryAfterSeconds: number) =>
  Effect.zipRight(
    // The contract's error schema cannot carry a header; the response is given it on its way out.
    HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(retryAfterSeconds)))
    ),
    Effect.fail(new RateLimited({ message: `Too many requests: retry in ${retryAfterSeconds} s` }))
  )

/**
 * The per-client-IP check of `group` for a request. The address is read only from the trusted
 * headers (`rateLimit.ipAddressHeaders`: a header anyone can set must not pick the bucket), else the
 * socket, never masked; and only when `group` is limited at all.
 */
export const ipLimit = (
  config: ResolvedConfig,
  limits: RateLimits,
  group: RateLimitGroup
): (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<RateCheck> => {
  if (!limits.enabled(group)) return () => Effect.succeed(undefined)
  const settings = { tracking: true, masking: false, headers: config.rateLimit?.trustedIpHeaders ?? [] }
  return (request) =>
    limits.consumeByIp(
      group,
      clientIp(
        settings,
        request.headers,
        request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined
      )
    )
}

const perClientIp = (group: RateLimitGroup) =>
  Effect.gen(function*() {
    const limits = yield* RateLimits
    if (!limits.enabled(group)) return Effect.void
    const check = ipLimit(yield* SvcConfig, limits, group)
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Effect.flatMap(check(request), (wait) => wait === undefined ? Effect.void : rateLimited(wait)))
  })

/** The contract's per-IP limits, one middleware per route group (each a no-op unless configured). */
export const RateLimitMiddlewareLive = Layer.mergeAll(
  Layer.effect(PublicWriteLimit, perClientIp("publicWrites")),
  Layer.effect(InitLimit, perClientIp("init")),
  Layer.effect(ManifestLimit, perClientIp("manifest"))
)
