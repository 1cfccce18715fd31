import { HttpLayerRouter, HttpServer } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect, Layer } from "effect"
import type { ResolvedConfig, SvcConfig } from "../config/resolved.js"
import { ApiKeyAuthLive } from "../http/api-key-auth.js"
import { CompressionLive } from "../http/compression.js"
import { EdgeLive, notFoundFallback, PreflightRouteLive } from "../http/edge.js"
import { OpenApiRoutesLive } from "../http/openapi.js"
import { RateLimitMiddlewareLive } from "../http/rate-limit.js"
import { type InitFastPath, InitFastPathLive } from "./init-fast-path.js"
import { GeoIp } from "../geo/geo-ip.js"
import { PolicyInit } from "../policy/init.js"
import { ScriptRoutesLive } from "../scripts/http.js"
import { InsightRoutesLive } from "../insight/http.js"
import { TelemetryLive } from "../telemetry/layer.js"
import { RequestMetricsLive } from "../telemetry/requests.js"
import { withLayerStatementMetrics } from "../telemetry/statements.js"
import { Draining } from "../health/draining.js"
import { HandlersLive } from "./handlers.js"
import { makeServicesLayer } from "./svc-services.js"

/**
 * How an instance's layer is built: whether it migrates first, and how the host tells it that it
 * is draining for shutdown.
 *
 * @example
 * ```ts
 * import { svcInstance, type SvcLayerOptions } from "@svc/backend"
 *
 * // From SIGTERM on, /health/ready answers 503 so the load balancer stops sending new requests.
 * let stopping = false
 * const layerOptions: SvcLayerOptions = { migrate: true, draining: () => stopping }
 * const svc = svcInstance({ database: { dialect: "sqlite", url: "./svc.db" } }, layerOptions)
 * process.once("SIGTERM", () => {
 *   stopping = true
 *   setTimeout(() => void svc.dispose(), 10_000)
 * })
 * ```
 */
export interface SvcLayerOptions {
  /** Apply pending migrations while the layer is built (before the first request is served). */
  readonly migrate?: boolean
  /**
   * Whether the server hosting the instance is draining for shutdown: `/health/ready` answers 503
   * while it says so (the bundled server sets it as it stops accepting).
   */
  readonly draining?: () => boolean
}

/** What the host tells the services about its process: whether it is draining. */
const hostReferences = (options: SvcLayerOptions) =>
  options.draining === undefined ? Layer.empty : Layer.succeed(Draining, options.draining)

/**
 * All routes of one svc instance, registered on the `HttpLayerRouter` the host provides, with
 * the instance's own configuration, database and services (`makeServicesLayer`, what
 * `SvcServices.layer` provides) built inside.
 *
 * @example
 * ```ts
 * import { HttpLayerRouter } from "@effect/platform"
 * import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
 * import { makeSvcLayer, resolveOptions } from "@svc/backend"
 * import { Layer } from "effect"
 * import { createServer } from "node:http"
 *
 * // `svcInstance(options).layer` in two steps: the options checked once, then the routes.
 * const config = resolveOptions({ database: { dialect: "sqlite", url: "./svc.db" }, basePath: "/consent" })
 * HttpLayerRouter.serve(makeSvcLayer(config, { migrate: true })).pipe(
 *   Layer.provide(NodeHttpServer.layer(createServer, { port: 3000 })),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 */
export const makeSvcLayer = (
  config: ResolvedConfig,
  options: SvcLayerOptions = {}
): Layer.Layer<never, unknown, HttpLayerRouter.HttpRouter> => routesWith(config, options, Layer.empty)

/** The routes, plus `beside`: a layer built with the same services (the `/init` fast path). */
const routesWith = <A>(
  config: ResolvedConfig,
  options: SvcLayerOptions,
  beside: Layer.Layer<A, never, SvcConfig | PolicyInit | GeoIp>
): Layer.Layer<A, unknown, HttpLayerRouter.HttpRouter> => {
  const ApiRoutes = HttpLayerRouter.addHttpApi(SvcApi).pipe(
    Layer.provide(HandlersLive),
    Layer.provide(ApiKeyAuthLive),
    Layer.provide(RateLimitMiddlewareLive)
  )
  // Every svc route is registered under the mount prefix; the router strips it before handlers run.
  const MountedRouter = Layer.effect(
    HttpLayerRouter.HttpRouter,
    Effect.map(
      HttpLayerRouter.HttpRouter,
      (router) => config.basePath === "" ? router : router.prefixed(config.basePath)
    )
  )
  const EdgeRoutes = Layer.mergeAll(
    ApiRoutes,
    OpenApiRoutesLive,
    ScriptRoutesLive,
    PreflightRouteLive,
    beside,
    TelemetryLive
  ).pipe(
    Layer.provide(RequestMetricsLive),
    Layer.provide(EdgeLive)
  )
  // The insight page takes a form login, which the JSON-only edge refuses: it sits beside the edge.
  const layer = Layer.mergeAll(EdgeRoutes, InsightRoutesLive).pipe(
    Layer.provide(CompressionLive),
    Layer.provide(MountedRouter),
    Layer.provide(HttpServer.layerContext),
    // The services with their background work (event delivery, retention): a host composing this
    // layer runs it too.
    Layer.provide(makeServicesLayer(config, { migrate: options.migrate }).pipe(Layer.provide(hostReferences(options))))
  )
  // With telemetry, SQL statements of the work the layer forks (deliveries, retention) are timed too.
  return config.telemetry === undefined ? layer : withLayerStatementMetrics(layer)
}

/**
 * What the bundled server and `svcInstance().handler` serve: the routes plus a fallback that
 * answers unknown routes with the spec's 404 body. A host app composing `makeSvcLayer` keeps its own.
 *
 * @example
 * ```ts
 * import { HttpLayerRouter } from "@effect/platform"
 * import { makeStandaloneSvcLayer, resolveOptions } from "@svc/backend"
 *
 * // svc alone behind a fetch-style server (Bun, Deno, a worker): unknown paths get svc's 404 body.
 * const config = resolveOptions({ database: { dialect: "sqlite", url: "./svc.db" } })
 * const { handler, dispose } = HttpLayerRouter.toWebHandler(makeStandaloneSvcLayer(config, { migrate: true }))
 * export default { fetch: (request: Request) => handler(request) }
 * ```
 */
export const makeStandaloneSvcLayer = (config: ResolvedConfig, options: SvcLayerOptions = {}) =>
  Layer.merge(makeSvcLayer(config, options), notFoundFallback(config))

/**
 * What the bundled Node server (`@svc/server`) runs: the standalone routes and, built with the
 * same services, the `InitFastPath` it answers plain `GET /init` with in front of the pipeline.
 *
 * @example
 * ```ts
 * import { HttpLayerRouter } from "@effect/platform"
 * import { InitFastPath, makeServerSvcLayer, resolveOptions } from "@svc/backend"
 * import { Effect, Layer } from "effect"
 *
 * // A Node server of your own: the router's routes, and the fast path to put in front of them.
 * const config = resolveOptions({ database: { dialect: "sqlite", url: "./svc.db" } })
 * const routes = makeServerSvcLayer(config, { migrate: true })
 * const fastInit = Effect.map(InitFastPath, (fast) => fast.answer).pipe(
 *   Effect.provide(Layer.provideMerge(routes, HttpLayerRouter.layer))
 * )
 * ```
 */
export const makeServerSvcLayer = (
  config: ResolvedConfig,
  options: SvcLayerOptions = {}
): Layer.Layer<InitFastPath, unknown, HttpLayerRouter.HttpRouter> =>
  Layer.merge(routesWith(config, options, InitFastPathLive), notFoundFallback(config))
