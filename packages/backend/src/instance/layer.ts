import { HttpLayerRouter, HttpServer } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect, Layer } from "effect"
import { type ResolvedConfig, SvcConfig } from "../config/resolved.js"
import { sqlClientLayer } from "../database/client.js"
import { migrateDatabase } from "../database/migrate.js"
import { EventDeliveryLive } from "../events/deliverer.js"
import { LogSequencingLive } from "../transparency/sequencer.js"
import { EventSinksLive } from "../events/sinks-live.js"
import { reportSchemaState } from "../database/schema-state.js"
import { ApiKeyAuthLive } from "../http/api-key-auth.js"
import { CompressionLive } from "../http/compression.js"
import { EdgeLive, notFoundFallback, PreflightRouteLive } from "../http/edge.js"
import { OpenApiRoutesLive } from "../http/openapi.js"
import { RateLimitMiddlewareLive } from "../http/rate-limit.js"
import { type InitFastPath, makeInitFastPath } from "../policy/init-fast-path.js"
import { ScriptRoutesLive } from "../scripts/http.js"
import { InsightRoutesLive } from "../insight/http.js"
import { TelemetryLive } from "../telemetry/layer.js"
import { RequestMetricsLive } from "../telemetry/requests.js"
import { withLayerStatementMetrics } from "../telemetry/statements.js"
import { HeapTuning } from "../records/export-heap.js"
import { HandlersLive } from "./handlers.js"
import { ServicesLive } from "./services.js"

export interface SvcLayerOptions {
  /** Apply pending migrations while the layer is built (before the first request is served). */
  readonly migrate?: boolean
  /** Receives the `GET /init` fast path once the services are built (the bundled Node server uses it). */
  readonly onInitFastPath?: (fastPath: InitFastPath) => void
  /**
   * The process is svc's own (the bundled Node server): a period export may hold V8's young
   * generation small and its old generation near its live size while it runs
   * (`records/export-heap.ts`). Off by default, so a host app's heap is never touched.
   */
  readonly tuneHeap?: boolean
}

/**
 * All routes of one svc instance, registered on the `HttpLayerRouter` the host provides, with
 * the instance's own configuration, database and services built inside.
 */
const HeapTuningLive = Layer.succeed(HeapTuning, true)

export const makeSvcLayer = (config: ResolvedConfig, options: SvcLayerOptions = {}) => {
  const ConfigLive = Layer.succeed(SvcConfig, config)
  const SqlLive = options.migrate === true
    ? Layer.tap(sqlClientLayer(config.database), (context) =>
      migrateDatabase(config.database).pipe(
        Effect.tap((applied) =>
          applied.length === 0
            ? Effect.void
            : Effect.logInfo(`applied migrations: ${applied.map(([id, name]) => `${id}-${name}`).join(", ")}`)
        ),
        Effect.provide(context)
      ))
    // Not migrating here: say at startup when the schema is missing or behind.
    : Layer.tap(sqlClientLayer(config.database), (context) => Effect.provide(reportSchemaState, context))
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
  const onInitFastPath = options.onInitFastPath
  const FastPath = onInitFastPath === undefined
    ? Layer.empty
    : Layer.effectDiscard(Effect.map(makeInitFastPath, onInitFastPath))
  // The event deliverer and the log sequencer run for the layer's lifetime, so a host composing this layer runs them too.
  const EdgeRoutes = Layer.mergeAll(
    ApiRoutes,
    OpenApiRoutesLive,
    ScriptRoutesLive,
    PreflightRouteLive,
    FastPath,
    EventDeliveryLive,
    LogSequencingLive,
    TelemetryLive
  ).pipe(
    Layer.provide(RequestMetricsLive),
    Layer.provide(EdgeLive)
  )
  // The insight page takes a form login, which the JSON-only edge refuses: it sits beside the edge.
  const layer = Layer.mergeAll(EdgeRoutes, InsightRoutesLive).pipe(
    Layer.provide(CompressionLive),
    Layer.provide(MountedRouter),
    Layer.provide(options.tuneHeap === true ? ServicesLive.pipe(Layer.provide(HeapTuningLive)) : ServicesLive),
    Layer.provide(EventSinksLive),
    Layer.provide(HttpServer.layerContext),
    Layer.provide(ConfigLive),
    Layer.provide(SqlLive)
  )
  // With telemetry, SQL statements of the work the layer forks (deliveries, retention) are timed too.
  return config.telemetry === undefined ? layer : withLayerStatementMetrics(layer)
}

/**
 * What the bundled server and `svcInstance().handler` serve: the routes plus a fallback that
 * answers unknown routes with the spec's 404 body. A host app composing `makeSvcLayer` keeps its own.
 */
export const makeStandaloneSvcLayer = (config: ResolvedConfig, options: SvcLayerOptions = {}) =>
  Layer.merge(makeSvcLayer(config, options), notFoundFallback(config))
