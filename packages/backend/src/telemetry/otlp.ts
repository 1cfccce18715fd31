import { FetchHttpClient, type HttpClient } from "@effect/platform"
import * as OtlpMetrics from "@effect/opentelemetry/OtlpMetrics"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { Context, Effect, Layer, Option, type Tracer } from "effect"
import { SvcConfig } from "../config/resolved.js"
import type { ResolvedTelemetry } from "../config/telemetry.js"

/**
 * The tracer that svc's request spans (and the SQL spans @effect/sql opens inside them) are
 * recorded with: OTLP/HTTP JSON to `telemetry.otlp.url`. Present only when `otlp` is configured;
 * it is applied per request by the request middleware, so a host application's own fibers keep
 * their tracer and nothing is traced when it is absent.
 */
export class RequestTracer
  extends Context.Tag("@svc/backend/RequestTracer")<RequestTracer, Option.Option<Tracer.Tracer>>() {}

const resourceOf = (telemetry: ResolvedTelemetry, version: string) => ({
  serviceName: telemetry.serviceName,
  serviceVersion: version
})

const exportLayer = <A>(layer: Layer.Layer<A, never, OtlpSerialization.OtlpSerialization | HttpClient.HttpClient>) =>
  layer.pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))

/** The OTLP tracer when `otlp` is configured; `None` otherwise. */
export const RequestTracerLive = Layer.unwrapEffect(Effect.map(SvcConfig, (config) => {
  const telemetry = config.telemetry
  const otlp = telemetry?.otlp
  if (telemetry === undefined || otlp === undefined) return Layer.succeed(RequestTracer, Option.none())
  return exportLayer(Layer.scoped(
    RequestTracer,
    Effect.map(
      OtlpTracer.make({
        url: `${otlp.url}/v1/traces`,
        resource: resourceOf(telemetry, config.version),
        headers: otlp.headers
      }),
      Option.some
    )
  ))
}))

/** Exports Effect's metric registry (svc's metrics among it) to `otlp.url` while the instance runs, flushing on close. */
export const OtlpMetricsLive = Layer.unwrapEffect(Effect.map(SvcConfig, (config) => {
  const telemetry = config.telemetry
  const otlp = telemetry?.otlp
  if (telemetry === undefined || otlp === undefined) return Layer.empty
  return exportLayer(
    OtlpMetrics.layer({
      url: `${otlp.url}/v1/metrics`,
      resource: resourceOf(telemetry, config.version),
      headers: otlp.headers
    })
  )
}))
