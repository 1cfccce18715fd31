import { Effect, Layer } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { MetricsRouteLive } from "./http.js"
import { OtlpMetricsLive } from "./otlp.js"
import { RuntimeGauges, RuntimeSamplingLive } from "./runtime.js"

/**
 * Everything `telemetry` adds to an instance besides the request middleware: the Prometheus route,
 * the gauge sampling and the OTLP metric export. With no
 * `telemetry` block this is empty: no monitor, no route, no recording.
 */
export const TelemetryLive = Layer.unwrapEffect(Effect.map(SvcConfig, (config) =>
  config.telemetry === undefined
    ? Layer.empty
    : Layer.mergeAll(MetricsRouteLive, RuntimeSamplingLive, OtlpMetricsLive).pipe(
      Layer.provide(RuntimeGauges.Default)
    )))
