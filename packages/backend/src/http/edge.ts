import {
  HttpIncomingMessage,
  HttpLayerRouter,
  HttpMethod,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { Cause, Effect, Layer, Option } from "effect"
import { propertyOf } from "../codec/guards.js"
import { MAX_BODY_BYTES, type ResolvedConfig, SvcConfig } from "../config/resolved.js"
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, corsHeaders, makeOriginPolicy, type OriginPolicy } from "./cors.js"
import { describeIssues } from "@svc/api"
import { errorResponse } from "./error-response.js"
import { refuseBody } from "./request-body.js"
import { levelFor, logRequest, probePaths, shouldLog } from "./request-log.js"
import { loggedRoute, pathOf } from "./routes.js"
import { openWideEvent } from "./wide-event.js"

/** Well-formed caller request ids are echoed; anything else is replaced by a UUID. */
export const requestIdOf = (header: string | undefined): string =>
  header !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(header) ? header : crypto.randomUUID()

const decoder = new TextDecoder()
const maxBodySize = Option.some(MAX_BODY_BYTES)

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

/** A failure nobody answered: logged with its cause; the answer says no more than `INTERNAL_ERROR`. */
export const logUnhandled = (cause: Cause.Cause<unknown>) => Effect.logError("Unhandled failure", cause)

/**
 * The headers the edge sets on every answer: the request id, CORS, and `Origin` added to the
 * answer's `Vary` when the request had one. The `/init` fast path sets the same (instance/init-fast-path.ts).
 */
export const edgeHeaders = (
  origins: OriginPolicy,
  origin: string | undefined,
  isInit: boolean,
  requestId: string,
  vary: string | undefined
): Record<string, string> => {
  const cors = corsHeaders(origins, origin, isInit)
  const headers: Record<string, string> = cors === undefined
    ? { "x-request-id": requestId }
    : { "x-request-id": requestId, ...cors }
  if (origin !== undefined) {
    if (vary === undefined) headers.vary = "Origin"
    else if (!/\borigin\b/i.test(vary)) headers.vary = `${vary}, Origin`
  }
  return headers
}

/** The wide log event of an answered request (`observability.requests` decides whether it is written). */
export const logAnswered = (
  config: ResolvedConfig,
  answered: {
    readonly method: string
    readonly route: string
    readonly status: number
    readonly started: number
    readonly requestId: string
    readonly event: Record<string, unknown>
  }
) =>
  logRequest(config.observability.requests, {
    method: answered.method,
    route: answered.route,
    status: answered.status,
    durationMs: Math.round((performance.now() - answered.started) * 100) / 100,
    tenant: config.tenantId ?? null,
    requestId: answered.requestId,
    ...answered.event
  })

/** What escaped the HttpApi encoder, turned into the spec's error body. Details stay in the log. */
const failureResponse = (cause: Cause.Cause<unknown>) =>
  Effect.gen(function*() {
    const failure = Cause.squash(cause)
    if (HttpServerError.isServerError(failure)) {
      if (failure._tag === "RouteNotFound") return errorResponse("ROUTE_NOT_FOUND", "No such route")
      if (failure._tag === "RequestError") {
        const detail = String(propertyOf(failure.cause, "message") ?? "")
        if (/too large|maxBytes|exceed/i.test(detail)) {
          return errorResponse("PAYLOAD_TOO_LARGE", `Request body exceeds ${MAX_BODY_BYTES} bytes`)
        }
        return errorResponse("INVALID_REQUEST", "Malformed request body: expected valid JSON")
      }
    }
    yield* logUnhandled(cause)
    return errorResponse("INTERNAL_ERROR", "Internal server error")
  })

/**
 * The one place every svc route passes through: CORS (preflights included), the body-size limit,
 * the request-body gate (JSON only, present, bounded depth), request ids, error bodies for
 * failures outside the API encoder, and the wide log event. It is scoped to svc's own routes, so
 * a host application composing svc keeps its own behaviour.
 */
const EdgeMiddleware = HttpLayerRouter.middleware<{ handles: unknown }>()(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const origins = makeOriginPolicy(config.trustedOrigins)
    const configuredLevel = config.observability.requests
    const probes = probePaths(config.basePath)

    // Written with plain combinators, not a generator: this runs for every request. Every failure is
    // answered here (`handles: unknown`); the error type still names the router's `unhandled` marker,
    // which its middleware type requires of the result (a widening: nothing fails).
    return (
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
    ): Effect.Effect<
      HttpServerResponse.HttpServerResponse,
      HttpLayerRouter.unhandled,
      HttpServerRequest.HttpServerRequest
    > =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const started = performance.now()
        const headers = request.headers
        const headerId = headers["x-request-id"]
        const requestId = requestIdOf(headerId)
        const path = pathOf(request.url)
        const isInit = path === "/init"
        const level = levelFor(configuredLevel, probes.has(path))
        const origin = headers.origin
        const event = openWideEvent(request)

        /** The answer with the edge's headers, logged when the level asks for it. */
        const finish = (raw: HttpServerResponse.HttpServerResponse) => {
          const response = HttpServerResponse.setHeaders(
            raw,
            edgeHeaders(origins, origin, isInit, requestId, raw.headers.vary)
          )
          if (!shouldLog(level, response.status)) return Effect.succeed(response)
          return loggedRoute(config.basePath, path).pipe(
            Effect.flatMap((route) =>
              logAnswered(config, { method: request.method, route, status: response.status, started, requestId, event })
            ),
            Effect.as(response)
          )
        }

        if (request.method === "OPTIONS" && headers["access-control-request-method"] !== undefined) {
          const allowed = corsHeaders(origins, origin, isInit)
          return finish(HttpServerResponse.empty({
            status: 204,
            headers: allowed === undefined ? { vary: "Origin" } : {
              ...allowed,
              "access-control-allow-methods": CORS_ALLOW_METHODS,
              "access-control-allow-headers": headers["access-control-request-headers"] ?? CORS_ALLOW_HEADERS,
              "access-control-max-age": "600",
              vary: "Origin, Access-Control-Request-Headers"
            }
          }))
        }
        if (Number(headers["content-length"] ?? 0) > MAX_BODY_BYTES) {
          return finish(errorResponse("PAYLOAD_TOO_LARGE", `Request body exceeds ${MAX_BODY_BYTES} bytes`))
        }
        // A body sent without Content-Length (chunked) is cut off at the same limit while it is
        // read; a request without a body (GET, HEAD, ...) has nothing to gate or cut off.
        const gated = HttpMethod.hasBody(request.method)
          ? HttpIncomingMessage.withMaxBodySize(
            Effect.flatMap(refuseBody(request), (refusal) => refusal === undefined ? app : Effect.succeed(refusal)),
            maxBodySize
          )
          : app
        return Effect.matchCauseEffect(gated, {
          onFailure: (cause) => Effect.flatMap(failureResponse(cause), finish),
          onSuccess: (raw) => finish(normalizeDecodeFailure(raw))
        })
      })
  })
)

/** Provide to every layer that registers svc routes. */
export const EdgeLive: Layer.Layer<never, never, SvcConfig> = EdgeMiddleware.layer

/** Preflights for every svc path: answered by the edge before this handler would run. */
export const PreflightRouteLive = HttpLayerRouter.add(
  "OPTIONS",
  "/*",
  Effect.succeed(HttpServerResponse.empty({ status: 204 }))
)

/**
 * Standalone only (the bundled server and `svcInstance().handler`): unknown routes, inside or
 * outside the mount prefix, answer 404 with the spec's error body.
 */
export const notFoundFallback = (config: ResolvedConfig): Layer.Layer<never, never, HttpLayerRouter.HttpRouter> =>
  HttpLayerRouter.middleware<{ handles: HttpServerError.RouteNotFound }>()(
    (app) =>
      Effect.catchTag(app, "RouteNotFound", (error) =>
        Effect.as(
          logRequest(config.observability.requests, {
            method: error.request.method,
            route: "(unknown)",
            status: 404,
            tenant: config.tenantId ?? null
          }),
          errorResponse("ROUTE_NOT_FOUND", "No such route")
        )),
    { global: true }
  )
