import { HttpLayerRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Layer } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { ApiKeys } from "../access/api-keys.js"
import { bearerToken } from "../http/bearer.js"
import { errorResponse } from "../http/error-response.js"
import { RateLimits } from "../limits/rate-limits.js"
import { prometheusText } from "./prometheus.js"
import { RuntimeGauges } from "./runtime.js"

/**
 * `GET /metrics` (path from `telemetry.prometheus.path`) in the Prometheus text format, for a
 * configured API key as a bearer token, under the administrative rate limit. A raw route rather
 * than a contract endpoint: its path is configurable and its body is not JSON.
 */
export const MetricsRouteLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const prometheus = config.telemetry?.prometheus
    if (prometheus === undefined) return Layer.empty
    const keys = yield* ApiKeys
    const limits = yield* RateLimits
    const gauges = yield* RuntimeGauges
    const route = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = bearerToken(request.headers.authorization)
      const matched = key === undefined ? undefined : keys.match(key)
      if (matched === undefined) {
        return errorResponse("UNAUTHORIZED", "A valid API key is required: Authorization: Bearer <API_KEY>", {
          "www-authenticate": "Bearer"
        })
      }
      const wait = yield* limits.consumeByKey(matched)
      if (wait !== undefined) {
        return errorResponse("RATE_LIMITED", `Too many requests: retry in ${wait} s`, { "retry-after": String(wait) })
      }
      yield* gauges.sample
      return HttpServerResponse.text(prometheusText(), {
        contentType: "text/plain; version=0.0.4; charset=utf-8",
        headers: { "cache-control": "no-store" }
      })
    })
    return HttpLayerRouter.add("GET", prometheus.path, route)
  })
)
