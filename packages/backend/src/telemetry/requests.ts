import {
  HttpLayerRouter,
  HttpServerError,
  HttpServerRequest,
  type HttpServerResponse,
  HttpTraceContext
} from "@effect/platform"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { propertyOf } from "../codec/guards.js"
import { SvcConfig } from "../config/resolved.js"
import { loggedRoute, pathOf } from "../http/routes.js"
import { currentWideEvent } from "../http/wide-event.js"
import { recordInitResolution, recordRefusal, recordRequest, recordSave } from "./metrics.js"
import { RequestTracer, RequestTracerLive } from "./otlp.js"
import { statementTimingTracer, withStatementMetrics } from "./statements.js"

const decoder = new TextDecoder()

/** Codes counted as refusals: the stale-policy and conflict family. */
const REFUSALS = new Set(["STALE_POLICY", "CONFLICT", "SUBJECT_CONFLICT", "IDENTITY_CONFLICT"])

/** The status the edge answers a failure that escaped the API encoder with (see http/edge.ts). */
const failureStatus = (cause: Cause.Cause<unknown>): number => {
  const failure = Cause.squash(cause)
  return HttpServerError.isServerError(failure) && failure._tag === "RequestError" ? 400 : 500
}

/** Code and reason of a 409/422 error body (`{ message, cause: { code, reason? } }`). */
const refusalOf = (response: HttpServerResponse.HttpServerResponse) => {
  if ((response.status !== 409 && response.status !== 422) || response.body._tag !== "Uint8Array") return undefined
  try {
    const cause = propertyOf(JSON.parse(decoder.decode(response.body.body)), "cause")
    const code = propertyOf(cause, "code")
    const reason = propertyOf(cause, "reason")
    return typeof code === "string" && REFUSALS.has(code)
      ? { code, reason: typeof reason === "string" ? reason : null }
      : undefined
  } catch {
    return undefined
  }
}

const text = (value: unknown): string | null => (typeof value === "string" ? value : null)

/**
 * Metrics of one answered request: its count and latency, and the outcomes its wide log event
 * names (`policy.resolution`, `consent.*`), so logs and metrics describe a request alike. The
 * middleware below and the `/init` fast path (instance/init-fast-path.ts) both record through it.
 */
export const recordAnswered = (
  answered: { readonly route: string; readonly method: string; readonly status: number; readonly seconds: number },
  event: Record<string, unknown> | undefined
): void => {
  recordRequest(answered.route, answered.method, answered.status, answered.seconds)
  if (event === undefined) return
  const resolution = text(event["policy.resolution"])
  if (resolution !== null) recordInitResolution(resolution, text(event["policy.matchedBy"]))
  const type = text(event["consent.type"])
  if (type !== null && answered.status < 300) {
    recordSave({
      type,
      policyId: text(event["consent.policyId"]),
      action: text(event["consent.action"]),
      runtimePolicySource: text(event["consent.decisionSource"])
    })
  }
}

/**
 * Records each request's count, latency and outcome metrics (`recordAnswered`), and refusals.
 * Only installed when `telemetry` is configured.
 */
const RequestMetrics = HttpLayerRouter.middleware(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    // The OTLP tracer with the request's SQL statements timed into the statement metrics.
    const tracer = Option.map(yield* RequestTracer, statementTimingTracer)
    const tenant = config.tenantId ?? ""

    /** Metrics of one finished request (with its refusal, if it was one); its status. */
    const record = (
      request: HttpServerRequest.HttpServerRequest,
      route: string,
      started: number,
      exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>,
      event: Option.Option<Record<string, unknown>>
    ): number => {
      const status = Exit.isSuccess(exit) ? exit.value.status : failureStatus(exit.cause)
      recordAnswered(
        { route, method: request.method, status, seconds: (performance.now() - started) / 1000 },
        Option.getOrUndefined(event)
      )
      if (Exit.isSuccess(exit)) {
        const refusal = refusalOf(exit.value)
        if (refusal !== undefined) recordRefusal(refusal.code, refusal.reason)
      }
      return status
    }

    return (
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, HttpLayerRouter.unhandled>
    ): Effect.Effect<
      HttpServerResponse.HttpServerResponse,
      HttpLayerRouter.unhandled,
      HttpServerRequest.HttpServerRequest
    > =>
      Effect.flatMap(
        HttpServerRequest.HttpServerRequest,
        (request) =>
          Effect.flatMap(loggedRoute(config.basePath, pathOf(request.url)), (route) => {
            const started = performance.now()
            const measured = Effect.onExit(app, (exit) =>
              Effect.flatMap(currentWideEvent, (event) => {
                const status = record(request, route, started, exit, event)
                return Option.isNone(tracer)
                  ? Effect.void
                  : Effect.annotateCurrentSpan("http.response.status_code", status)
              }))
            if (Option.isNone(tracer)) return withStatementMetrics(measured)
            // Route template, method, status and tenant only: never the concrete path, a query, a header or a body.
            // The caller's span of a W3C `traceparent` header is the parent; else a root span: never the
            // platform's own request span (with the full URL), which is not exported.
            const parent = HttpTraceContext.w3c(request.headers)
            return measured.pipe(
              Effect.withSpan(`${request.method} ${route}`, {
                kind: "server",
                ...(Option.isSome(parent) ? { parent: parent.value } : { root: true }),
                attributes: { "http.request.method": request.method, "http.route": route, "svc.tenant": tenant }
              }),
              Effect.withTracer(tracer.value)
            )
          })
      )
  })
)

const RequestMetricsLayer = RequestMetrics.layer.pipe(Layer.provide(RequestTracerLive))

/** Request metrics (and, with `otlp`, spans) for svc's routes when `telemetry` is configured; nothing at all otherwise. */
export const RequestMetricsLive = Layer.unwrapEffect(
  Effect.map(SvcConfig, (config) => (config.telemetry === undefined ? Layer.empty : RequestMetricsLayer))
)
