import { Effect, type Exit, Layer, Tracer } from "effect"
import { recordStatement, statementKindOf, type StatementKind, trackStatementInFlight } from "./metrics.js"

/*
 * Database statement metrics, read off the `sql.execute` span that @effect/sql opens around every
 * statement on every driver (from taking a connection to the last row): its duration is the
 * statement's latency, as the trace shows it. A tracer wrapping the current one (the OTLP tracer,
 * a host application's, or Effect's own) times those spans and passes everything through unchanged.
 * It is only applied where svc runs (its requests, and the layer whose fibers run its background
 * work) and only when `telemetry` is configured: with nothing configured it is never built.
 */

/** A `sql.execute` span of the inner tracer that records the statement when it ends. */
class TimedSpan implements Tracer.Span {
  readonly _tag = "Span"
  private kind_: StatementKind = "other"
  constructor(readonly inner: Tracer.Span) {
    trackStatementInFlight(1)
  }
  get name() {
    return this.inner.name
  }
  get spanId() {
    return this.inner.spanId
  }
  get traceId() {
    return this.inner.traceId
  }
  get parent() {
    return this.inner.parent
  }
  get context() {
    return this.inner.context
  }
  get status() {
    return this.inner.status
  }
  get attributes() {
    return this.inner.attributes
  }
  get links() {
    return this.inner.links
  }
  get sampled() {
    return this.inner.sampled
  }
  get kind() {
    return this.inner.kind
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    trackStatementInFlight(-1)
    recordStatement(this.kind_, Number(endTime - this.inner.status.startTime) / 1e9, exit._tag === "Success")
    this.inner.end(endTime, exit)
  }
  attribute(key: string, value: unknown): void {
    if (key === "db.query.text") this.kind_ = statementKindOf(value)
    this.inner.attribute(key, value)
  }
  event(name: string, startTime: bigint, attributes?: Record<string, unknown>): void {
    this.inner.event(name, startTime, attributes)
  }
  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    this.inner.addLinks(links)
  }
}

const timed = new WeakMap<Tracer.Tracer, Tracer.Tracer>()

/** `inner`, with its `sql.execute` spans timed into the statement metrics (one wrapper per tracer, kept). */
export const statementTimingTracer = (inner: Tracer.Tracer): Tracer.Tracer => {
  let tracer = timed.get(inner)
  if (tracer === undefined) {
    tracer = Tracer.make({
      span: (name, parent, context, links, startTime, kind, options) => {
        const span = inner.span(name, parent, context, links, startTime, kind, options)
        return name === "sql.execute" ? new TimedSpan(span) : span
      },
      context: (f, fiber) => inner.context(f, fiber)
    })
    timed.set(inner, tracer)
    timed.set(tracer, tracer) // wrapping twice (a request inside a timed layer) times once
  }
  return tracer
}

/** Runs `effect` with its statements timed (on top of whatever tracer is current). */
export const withStatementMetrics = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tracerWith((tracer) => Effect.withTracer(effect, statementTimingTracer(tracer)))

/**
 * Builds `layer` with its statements timed, so the fibers it forks (background work) are timed too.
 * `withStatementMetrics` is passed as it is: being generic, it fits the build effect that
 * `Layer.locallyEffect` declares with its type parameters out of order.
 */
export const withLayerStatementMetrics = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.locallyEffect(layer, withStatementMetrics)
