import { Effect, Layer, MetricLabel, Schedule } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { SvcConfig } from "../config/resolved.js"
import { EventDeliveries } from "../events/deliveries.js"
import { eventLoopDelay, memoryBytes, outboxDeliveries } from "./metrics.js"

const label = MetricLabel.make
const NS = 1e9

/**
 * Process and outbox gauges, read when they are asked for: before each Prometheus scrape and, with
 * an OTLP collector, every 10 s so the exporter sends fresh values. Only built when `telemetry` is
 * configured; the event-loop monitor is stopped with the instance.
 */
export class RuntimeGauges extends Effect.Service<RuntimeGauges>()("@svc/backend/RuntimeGauges", {
  scoped: Effect.gen(function*() {
    const deliveries = yield* EventDeliveries
    const monitor = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const histogram = monitorEventLoopDelay({ resolution: 10 })
        histogram.enable()
        return histogram
      }),
      (histogram) => Effect.sync(() => histogram.disable())
    )
    const sample = Effect.gen(function*() {
      const memory = process.memoryUsage()
      memoryBytes.unsafeUpdate(memory.rss, [label("kind", "rss")])
      memoryBytes.unsafeUpdate(memory.heapUsed, [label("kind", "heap_used")])
      memoryBytes.unsafeUpdate(memory.heapTotal, [label("kind", "heap_total")])
      memoryBytes.unsafeUpdate(memory.external, [label("kind", "external")])
      if (monitor.count > 0) {
        eventLoopDelay.unsafeUpdate(monitor.percentile(50) / NS, [label("quantile", "p50")])
        eventLoopDelay.unsafeUpdate(monitor.percentile(99) / NS, [label("quantile", "p99")])
        eventLoopDelay.unsafeUpdate(monitor.max / NS, [label("quantile", "max")])
        monitor.reset()
      }
      // Outbox counts exist only when events are delivered somewhere; a failing read leaves the last values.
      const counts = yield* Effect.orElseSucceed(deliveries.counts, () => undefined)
      if (counts !== undefined) {
        outboxDeliveries.unsafeUpdate(counts.pending, [label("status", "pending")])
        outboxDeliveries.unsafeUpdate(counts.failed, [label("status", "failed")])
      }
    })
    return { sample } as const
  })
}) {}

/** With an OTLP collector, samples the gauges every 10 s for the exporter. */
export const RuntimeSamplingLive = Layer.unwrapEffect(
  Effect.map(SvcConfig, (config) =>
    config.telemetry?.otlp === undefined ? Layer.empty : Layer.scopedDiscard(
      Effect.flatMap(RuntimeGauges, (gauges) =>
        Effect.forkScoped(Effect.repeat(gauges.sample, Schedule.spaced("10 seconds"))))
    ))
)
