import { InitHeaders, InitQuery } from "@svc/api"
import { Effect, Either, Runtime, Schema } from "effect"
import type { IncomingHttpHeaders } from "node:http"
import { SvcConfig } from "../config/resolved.js"
import { GeoIp } from "../geo/geo-ip.js"
import { corsHeaders, makeOriginPolicy } from "../http/cors.js"
import { requestIdOf } from "../http/edge.js"
import { INIT_HEADERS } from "./http.js"
import { PolicyInit } from "./init.js"
import { readInitRequest } from "./init-request.js"
import { recordInitResolution, recordRequest } from "../telemetry/metrics.js"

export interface FastInitAnswer {
  readonly headers: Record<string, string>
  readonly body: string
}

/**
 * Answers a plain `GET /init`, or declines with `undefined`, in which case the caller hands the
 * request to the Effect HTTP pipeline, which answers everything (errors included) the usual way.
 */
export type InitFastPath = (
  rawQuery: string,
  headers: IncomingHttpHeaders,
  remoteAddress: string | undefined
) => Promise<FastInitAnswer> | undefined

const decodeQuery = Schema.decodeUnknownEither(InitQuery)
const decodeHeaders = Schema.decodeUnknownEither(InitHeaders)

/**
 * `GET /init` is the hottest route by far (every page view) and its own work is ~15 µs, while a
 * route through Effect's HTTP server costs an order of magnitude more. The bundled Node server
 * therefore answers it through this function first. It runs the same `PolicyInit.answer`, decodes
 * the inputs with the contract's own schemas, and sets the same headers with the edge's own CORS
 * and request-id functions; anything unusual (a repeated or invalid input, a request that would be
 * logged) is declined and takes the ordinary route, so both paths answer alike.
 */
export const makeInitFastPath = Effect.gen(function*() {
  const config = yield* SvcConfig
  const init = yield* PolicyInit
  const geo = yield* GeoIp
  // The instance's own runtime (its logger, secret scrubber and tracer setting), not the global one.
  const runPromise = Runtime.runPromise(yield* Effect.runtime<never>())
  const origins = makeOriginPolicy(config.trustedOrigins)
  // Successful requests are logged only at `all`: then the ordinary route writes the wide event.
  // A configured `/init` rate limit is counted on the ordinary route only.
  const enabled = config.observability.requests !== "all" && config.rateLimit?.rules.init === undefined
  // With telemetry, requests answered here are counted too (the ordinary route's middleware never sees them).
  const metered = config.telemetry !== undefined
  const fastPath: InitFastPath = (rawQuery, headers, remoteAddress) => {
    if (!enabled) return undefined
    const started = metered ? performance.now() : 0
    const params = new URLSearchParams(rawQuery)
    const query: Record<string, string | Array<string>> = {}
    for (const [key, value] of params) {
      const seen = query[key]
      query[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]
    }
    const flat = headers as Record<string, string | undefined>
    const decodedQuery = decodeQuery(query)
    if (Either.isLeft(decodedQuery)) return undefined
    const decodedHeaders = decodeHeaders(flat)
    if (Either.isLeft(decodedHeaders)) return undefined
    const origin = flat.origin
    const cors = corsHeaders(origins, origin, true)
    const request = readInitRequest(
      config,
      decodedQuery.right,
      decodedHeaders.right,
      flat,
      remoteAddress,
      false,
      geo.lookup
    )
    return runPromise(init.answer(request)).then((answer) => {
      if (metered) {
        recordInitResolution(
          answer.resolution.status,
          answer.resolution.status === "matched" ? answer.resolution.matchedBy : null
        )
        recordRequest("/init", "GET", 200, (performance.now() - started) / 1000)
      }
      return {
        body: answer.body,
        headers: {
          "content-type": "application/json",
          ...INIT_HEADERS,
          ...(origin === undefined ? {} : { vary: `${INIT_HEADERS.vary}, Origin` }),
          "x-request-id": requestIdOf(flat["x-request-id"]),
          ...cors
        }
      }
    })
  }
  return fastPath
})
