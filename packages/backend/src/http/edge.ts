import { HttpLayerRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Layer } from "effect"
import { MAX_BODY_BYTES, SvcConfig } from "../config/resolved.js"
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, corsHeaders, makeOriginPolicy } from "./cors.js"
import { describeIssues } from "@svc/api"
import { errorResponse } from "./error-response.js"
import { logRequest } from "./request-log.js"
import { pathOf, routeTemplate } from "./routes.js"
import { WideEvent } from "./wide-event.js"

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/

/** Strips the mount prefix; `undefined` when the URL is outside it. */
const stripBasePath = (url: string, basePath: string): string | undefined => {
  if (basePath === "") return url
  if (!url.startsWith(basePath)) return undefined
  const rest = url.slice(basePath.length)
  if (rest === "") return "/"
  if (rest[0] === "/") return rest
  if (rest[0] === "?") return `/${rest}`
  return undefined
}

const decoder = new TextDecoder()

/**
 * The framework encodes its own request-decoding failures as `{ _tag, issues, message }` before
 * any of our code sees them; this rewrites exactly those into the spec's INVALID_REQUEST body.
 */
const normalizeDecodeFailure = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.status !== 400 || response.body._tag !== "Uint8Array") return response
  let body: { _tag?: unknown; issues?: ReadonlyArray<{ path: ReadonlyArray<unknown>; message: string }> }
  try {
    body = JSON.parse(decoder.decode(response.body.body))
  } catch {
    return response
  }
  if (body._tag !== "HttpApiDecodeError") return response
  return errorResponse("INVALID_REQUEST", describeIssues(body.issues ?? []))
}

/** What escaped the HttpApi encoder, turned into the spec's error body. Details stay in the log. */
const failureResponse = (cause: Cause.Cause<unknown>) =>
  Effect.gen(function*() {
    const failure = Cause.squash(cause)
    if (HttpServerError.isServerError(failure)) {
      if (failure._tag === "RouteNotFound") return errorResponse("ROUTE_NOT_FOUND", "No such route")
      if (failure._tag === "RequestError") {
        const detail = String((failure.cause as { message?: unknown } | undefined)?.message ?? "")
        if (/too large|maxBytes|exceed/i.test(detail)) {
          return errorResponse("PAYLOAD_TOO_LARGE", `Request body exceeds ${MAX_BODY_BYTES} bytes`)
        }
        return errorResponse("INVALID_REQUEST", "Malformed request body: expected valid JSON")
      }
    }
    yield* Effect.logError("Unhandled failure", cause)
    return errorResponse("INTERNAL_ERROR", "Internal server error")
  })

/**
 * The one place every request passes through: mount prefix, CORS (preflights included), the
 * body-size limit, request ids, error bodies for failures outside the API, and the wide log event.
 */
export const EdgeLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const router = yield* HttpLayerRouter.HttpRouter
    const origins = makeOriginPolicy(config.trustedOrigins)
    const edge = (
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const started = performance.now()
        const headerId = request.headers["x-request-id"]
        const requestId = headerId !== undefined && requestIdPattern.test(headerId) ? headerId : crypto.randomUUID()
        const url = stripBasePath(request.url, config.basePath)
        const path = url === undefined ? pathOf(request.url) : pathOf(url)
        const isInit = path === "/init"
        const origin = request.headers.origin
        const event: Record<string, unknown> = {}

        let response: HttpServerResponse.HttpServerResponse
        if (url === undefined) {
          response = errorResponse("ROUTE_NOT_FOUND", "No such route")
        } else if (request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined) {
          const allowed = corsHeaders(origins, origin, isInit)
          response = HttpServerResponse.empty({
            status: 204,
            headers: allowed === undefined ? { vary: "Origin" } : {
              ...allowed,
              "access-control-allow-methods": CORS_ALLOW_METHODS,
              "access-control-allow-headers": request.headers["access-control-request-headers"] ?? CORS_ALLOW_HEADERS,
              "access-control-max-age": "600",
              vary: "Origin, Access-Control-Request-Headers"
            }
          })
        } else if (Number(request.headers["content-length"] ?? 0) > MAX_BODY_BYTES) {
          response = errorResponse("PAYLOAD_TOO_LARGE", `Request body exceeds ${MAX_BODY_BYTES} bytes`)
        } else {
          const routed = url === request.url ? request : request.modify({ url })
          response = yield* app.pipe(
            Effect.provideService(HttpServerRequest.HttpServerRequest, routed),
            Effect.provideService(WideEvent, event),
            Effect.catchAllCause(failureResponse),
            Effect.map(normalizeDecodeFailure)
          )
        }

        const cors = corsHeaders(origins, origin, isInit)
        response = HttpServerResponse.setHeaders(response, {
          "x-request-id": requestId,
          ...cors
        })
        if (cors !== undefined || origin !== undefined) {
          const vary = response.headers.vary
          if (vary === undefined) response = HttpServerResponse.setHeader(response, "vary", "Origin")
          else if (!/\borigin\b/i.test(vary)) response = HttpServerResponse.setHeader(response, "vary", `${vary}, Origin`)
        }
        yield* logRequest(config.observability.requests, {
          method: request.method,
          route: routeTemplate(path),
          status: response.status,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
          tenant: config.tenantId ?? null,
          requestId,
          ...event
        })
        return response
      })
    // The router's types forbid a global middleware from handling errors; this one exists to do so.
    yield* (router.addGlobalMiddleware(edge as never) as Effect.Effect<void>)
  })
)
