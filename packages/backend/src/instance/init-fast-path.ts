import { InitHeaders, InitQuery } from "@svc/api"
import { Context, Effect, Layer, ParseResult, Runtime, type Schema } from "effect"
import { compileDecoder } from "../codec/compiled.js"
import { SvcConfig } from "../config/resolved.js"
import { GeoIp } from "../geo/geo-ip.js"
import { INIT_HEADERS, initEventFields } from "../policy/http.js"
import { PolicyInit } from "../policy/init.js"
import { readInitRequest } from "../policy/init-request.js"
import { recordInitFastPathDecline } from "../telemetry/metrics.js"
import { recordAnswered } from "../telemetry/requests.js"
import { makeOriginPolicy } from "../http/cors.js"
import { edgeHeaders, logAnswered, logUnhandled, requestIdOf } from "../http/edge.js"
import { errorBody } from "../http/error-response.js"
import { shouldLog } from "../http/request-log.js"

/**
 * A fast-path answer, ready to be written: status, headers (without `content-length`), body.
 *
 * @example
 * ```ts
 * import type { FastInitAnswer } from "@svc/backend"
 * import type { ServerResponse } from "node:http"
 *
 * // Writing an answer to node:http: the length is the body's byte length, not its string length.
 * const write = (res: ServerResponse, { status, headers, body }: FastInitAnswer) => {
 *   res.writeHead(status, { ...headers, "content-length": Buffer.byteLength(body) })
 *   res.end(body)
 * }
 * ```
 */
export interface FastInitAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

/**
 * A request's headers as node:http reads them (lower-case names).
 *
 * @example
 * ```ts
 * import { InitFastPath, type IncomingHeaders } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A smoke test asks the fast path what a French visitor with GPC on would get.
 * const headers: IncomingHeaders = { "cf-ipcountry": "FR", "accept-language": "fr-FR,fr;q=0.9", "sec-gpc": "1" }
 * const french = Effect.flatMap(InitFastPath, (fast) =>
 *   Effect.promise(async () => (await fast.answer?.("", headers, "198.51.100.23"))?.status))
 * ```
 */
export type IncomingHeaders = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/**
 * Answers a plain `GET /init` (see `InitFastPath`), or declines with `undefined`.
 *
 * @example
 * ```ts
 * import type { InitFastAnswer } from "@svc/backend"
 *
 * // Times each answer; declines exactly when the wrapped answer declines.
 * const timed = (answer: InitFastAnswer, record: (ms: number) => void): InitFastAnswer => (query, headers, peer) => {
 *   const started = performance.now()
 *   return answer(query, headers, peer)?.finally(() => record(performance.now() - started))
 * }
 * ```
 */
export type InitFastAnswer = (
  rawQuery: string,
  headers: IncomingHeaders,
  remoteAddress: string | undefined
) => Promise<FastInitAnswer> | undefined

/**
 * `GET /init` is the hottest route by far (every page view) and its own work is ~15 µs, while a
 * route through Effect's HTTP server costs an order of magnitude more. So the bundled Node server
 * (`@svc/server`) answers plain `GET <basePath>/init` through this service, in front of the
 * pipeline. It is the pipeline's `/init` route without the router: the same `PolicyInit` service,
 * inputs decoded with the contract's own schemas, and the edge's own pieces for the rest (request
 * id, CORS and `Vary` from `edgeHeaders`, the wide log event from `logAnswered`, metrics from
 * `recordAnswered`, an unexpected failure logged by `logUnhandled` and answered `INTERNAL_ERROR`).
 *
 * A request whose query or headers do not decode is declined before anything ran: the caller
 * hands it to the pipeline, which answers it (with its 400), and the decline is logged at debug
 * and counted (`declined`; `svc_init_fast_path_declines_total` with telemetry). Nothing is ever
 * run twice. With a rate limit on `/init` the limiter (pipeline middleware) must see every
 * request, so `answer` is `undefined`: said once at startup.
 *
 * @example
 * ```ts
 * import type { InitFastPath } from "@svc/backend"
 * import type { IncomingMessage, ServerResponse } from "node:http"
 *
 * type Listener = (req: IncomingMessage, res: ServerResponse) => void
 * // Plain GET /init answered in front of the Effect pipeline; everything else, and every decline, goes on.
 * const withFastInit = (fast: InitFastPath["Type"], pipeline: Listener): Listener => (req, res) => {
 *   const [path, query = ""] = (req.url ?? "/").split("?", 2)
 *   const answer = req.method === "GET" && path === fast.path
 *     ? fast.answer?.(query, req.headers, req.socket.remoteAddress)
 *     : undefined
 *   if (answer === undefined) return pipeline(req, res)
 *   answer.then(({ status, headers, body }) => res.writeHead(status, headers).end(body), () => res.destroy())
 * }
 * ```
 */
export class InitFastPath extends Context.Tag("@svc/backend/InitFastPath")<InitFastPath, {
  /** The path answered: `<basePath>/init`. */
  readonly path: string
  /** `undefined` when every `/init` must take the pipeline (a rate limit on `/init` is configured). */
  readonly answer: InitFastAnswer | undefined
  /** Requests answered so far (for diagnostics and tests). */
  readonly answered: () => number
  /** Requests declined so far (handed to the pipeline). */
  readonly declined: () => number
}>() {}

/**
 * A contract schema's compiled decoder (`codec/compiled.ts`: Effect's decoding at a fraction of its
 * cost), answering `undefined` for what does not decode: such a request is declined.
 */
const decoderOf = <A, I>(schema: Schema.Schema<A, I, never>): (input: unknown) => A | undefined => {
  const decode = compileDecoder(schema)
  return (input) => {
    try {
      return decode(input)
    } catch (error) {
      if (ParseResult.isParseError(error)) return undefined
      throw error
    }
  }
}

const decodeQuery = decoderOf(InitQuery)
const decodeHeaders = decoderOf(InitHeaders)

/** The query as the router reads it: a repeated name becomes an array (which `InitQuery` refuses). */
const queryOf = (rawQuery: string) => {
  const query: Record<string, string | Array<string>> = {}
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    const seen = query[key]
    query[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]
  }
  return query
}

const internalError = errorBody("INTERNAL_ERROR", "Internal server error")

/**
 * The fast path of an instance: built with the instance's services (see `makeServerSvcLayer`).
 *
 * @example
 * ```ts
 * import { InitFastPath, InitFastPathLive } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A diagnostics endpoint: how much of the /init traffic took the fast path. What it needs (SvcConfig,
 * // PolicyInit and the IP lookup) comes from the instance's layer, as makeServerSvcLayer provides it.
 * const fastPathStats = Effect.map(InitFastPath, (fast) => ({ answered: fast.answered(), declined: fast.declined() }))
 *   .pipe(Effect.provide(InitFastPathLive))
 * ```
 */
export const InitFastPathLive: Layer.Layer<InitFastPath, never, SvcConfig | PolicyInit | GeoIp> = Layer.effect(
  InitFastPath,
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const init = yield* PolicyInit
    const geo = yield* GeoIp
    const path = `${config.basePath}/init`
    let answered = 0
    let declined = 0
    const stats = { path, answered: () => answered, declined: () => declined }
    if (config.rateLimit?.rules.init !== undefined) {
      yield* Effect.logInfo("GET /init: a rate limit on /init is configured, so every /init takes the pipeline")
      return { ...stats, answer: undefined }
    }
    // The instance's own runtime (its logger, secret scrubber and tracer setting), not the global one.
    const runtime = yield* Effect.runtime<never>()
    const runPromise = Runtime.runPromise(runtime)
    const runFork = Runtime.runFork(runtime)
    const origins = makeOriginPolicy(config.trustedOrigins)
    const level = config.observability.requests
    const logsAnswers = shouldLog(level, 200)
    const metered = config.telemetry !== undefined

    const decline = (reason: "query" | "headers") => {
      declined++
      if (metered) recordInitFastPathDecline(reason)
      runFork(Effect.logDebug(`GET /init: the fast path declined (the ${reason} did not decode); the pipeline answers`))
      return undefined
    }

    /** Metrics and the wide log event of an answer, as the pipeline's middleware and edge write them. */
    const finish = (started: number, requestId: string, answer: FastInitAnswer, event: Record<string, unknown>) => {
      if (metered) {
        recordAnswered(
          { route: "/init", method: "GET", status: answer.status, seconds: (performance.now() - started) / 1000 },
          event
        )
      }
      return shouldLog(level, answer.status)
        ? Effect.as(
          logAnswered(config, { method: "GET", route: "/init", status: answer.status, started, requestId, event }),
          answer
        )
        : Effect.succeed(answer)
    }

    const answer: InitFastAnswer = (rawQuery, headers, remoteAddress) => {
      const started = performance.now()
      // node:http joins a request's repeated headers into one string; only `set-cookie`, a
      // response header, comes as an array. Checking each value here would cost the hot path.
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- node:http's header typing (IncomingHttpHeaders) cannot say that only `set-cookie` is an array
      const flat = headers as Readonly<Record<string, string | undefined>>
      const query = decodeQuery(queryOf(rawQuery))
      if (query === undefined) return decline("query")
      const contractHeaders = decodeHeaders(flat)
      if (contractHeaders === undefined) return decline("headers")
      const origin = flat.origin
      const requestId = requestIdOf(flat["x-request-id"])
      const request = readInitRequest(
        config,
        query,
        contractHeaders,
        flat,
        remoteAddress,
        false,
        geo.lookup
      )
      answered++
      return runPromise(
        init.answer(request).pipe(
          Effect.flatMap((result) => {
            const ok: FastInitAnswer = {
              status: 200,
              body: result.body,
              headers: {
                "content-type": "application/json",
                ...INIT_HEADERS,
                ...edgeHeaders(origins, origin, true, requestId, INIT_HEADERS.vary)
              }
            }
            // The event is only built when something reads it (a log line or the metrics).
            return logsAnswers || metered
              ? finish(
                started,
                requestId,
                ok,
                initEventFields(result, query, contractHeaders, request.location.source)
              )
              : Effect.succeed(ok)
          }),
          Effect.catchAllCause((cause) =>
            Effect.zipRight(
              logUnhandled(cause),
              finish(started, requestId, {
                status: internalError.status,
                body: internalError.body,
                headers: {
                  "content-type": "application/json",
                  ...edgeHeaders(origins, origin, true, requestId, undefined)
                }
              }, {})
            )
          )
        )
      )
    }
    return { ...stats, answer }
  })
)
