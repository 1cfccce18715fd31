import { Metric, MetricBoundaries, MetricLabel } from "effect"
import { isOneOf } from "../codec/guards.js"

/*
 * svc's metrics, as Effect `Metric`s: the Prometheus endpoint reads them from Effect's registry and
 * the OTLP exporter of @effect/opentelemetry sends the same registry to a collector. Labels are
 * bounded sets fixed by the contract or the manifest (route templates, status classes, codes,
 * rule ids): never a subject id, an IP, a token or a concrete path. Nothing here is recorded unless
 * `telemetry` is configured (the callers check that once, when their layer is built).
 */

const requests = Metric.counter("svc_http_requests_total", {
  description: "HTTP requests answered, per route template, method and status class",
  incremental: true
})

const latency = Metric.histogram(
  "svc_http_request_duration_seconds",
  MetricBoundaries.fromIterable([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  "HTTP request latency in seconds, per route template, method and status class"
)

const saves = Metric.counter("svc_consent_saves_total", {
  description: "Consents stored, per type, policy rule, action and runtimePolicySource",
  incremental: true
})

const refusals = Metric.counter("svc_consent_refusals_total", {
  description:
    "Writes refused as STALE_POLICY or CONFLICT (and its subject and identity variants), per code and reason",
  incremental: true
})

const initResolutions = Metric.counter("svc_init_resolutions_total", {
  description: "GET /init policy resolutions, per status and matchedBy",
  incremental: true
})

const initFastPathDeclines = Metric.counter("svc_init_fast_path_declines_total", {
  description: "GET /init requests the bundled server's fast path handed to the pipeline, per reason (query, headers)",
  incremental: true
})

export const outboxDeliveries = Metric.gauge("svc_outbox_deliveries", {
  description: "Event deliveries in the outbox, per status (pending, failed)"
})

export const memoryBytes = Metric.gauge("svc_process_memory_bytes", {
  description: "Process memory in bytes, per kind (rss, heap_used, heap_total, external)"
})

export const eventLoopDelay = Metric.gauge("svc_event_loop_delay_seconds", {
  description: "Event-loop delay since the previous reading, per quantile (p50, p99, max)"
})

const label = MetricLabel.make

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`

// One label array per (route, method, status class), kept: Effect caches a metric's hook by the
// identity of the array, so a reused array skips hashing the labels on every request. Bounded by
// the route templates times methods times five classes.
const requestTags = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()

/** One answered request: `route` is a template (`/subjects/:id`), never a concrete path. */
export const recordRequest = (route: string, method: string, status: number, seconds: number): void => {
  const statusClassOf = statusClass(status)
  const key = `${route} ${method} ${statusClassOf}`
  let tags = requestTags.get(key)
  if (tags === undefined) {
    tags = [label("route", route), label("method", method), label("status_class", statusClassOf)]
    requestTags.set(key, tags)
  }
  requests.unsafeUpdate(1, tags)
  latency.unsafeUpdate(seconds, tags)
}

/** One stored consent. Absent values are labelled `none`. */
export const recordSave = (save: {
  readonly type: string
  readonly policyId: string | null
  readonly action: string | null
  readonly runtimePolicySource: string | null
}): void =>
  saves.unsafeUpdate(1, [
    label("type", save.type),
    label("policy", save.policyId ?? "none"),
    label("action", save.action ?? "none"),
    label("runtime_policy_source", save.runtimePolicySource ?? "none")
  ])

/** One refused write: `code` is the error code, `reason` the STALE_POLICY reason or `none`. */
export const recordRefusal = (code: string, reason: string | null): void =>
  refusals.unsafeUpdate(1, [label("code", code), label("reason", reason ?? "none")])

/** One `/init` resolution, on the ordinary route or the bundled server's fast path. */
export const recordInitResolution = (status: string, matchedBy: string | null): void =>
  initResolutions.unsafeUpdate(1, [label("status", status), label("matched_by", matchedBy ?? "none")])

/** One `/init` the bundled server's fast path declined: `reason` names the input that did not decode. */
export const recordInitFastPathDecline = (reason: "query" | "headers"): void =>
  initFastPathDeclines.unsafeUpdate(1, [label("reason", reason)])

const statementLatency = Metric.histogram(
  "svc_db_statement_duration_seconds",
  MetricBoundaries.fromIterable([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]),
  "Database statement latency in seconds (taking a connection included), per statement kind"
)

const statements = Metric.counter("svc_db_statements_total", {
  description: "Database statements run, per statement kind and outcome (ok, error)",
  incremental: true
})

const STATEMENT_KINDS = ["select", "insert", "update", "delete", "with", "other"] as const
export type StatementKind = typeof STATEMENT_KINDS[number]

// Label arrays kept per kind and outcome, as `requestTags` above.
const kindTags = new Map(STATEMENT_KINDS.map((kind) => [kind, [label("statement", kind)]] as const))
const outcomeTags = new Map(
  STATEMENT_KINDS.flatMap((kind) =>
    (["ok", "error"] as const).map((outcome) =>
      [`${kind} ${outcome}`, [label("statement", kind), label("outcome", outcome)]] as const
    )
  )
)

/** A statement's first keyword, lower-cased (`other` for anything else): a bounded label, never the statement text. */
export const statementKindOf = (sql: unknown): StatementKind => {
  const word = typeof sql === "string" ? /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toLowerCase() : undefined
  return isOneOf(STATEMENT_KINDS, word) ? word : "other"
}

const statementsInFlight = Metric.gauge("svc_db_statements_in_flight", {
  description:
    "Database statements started and not finished (waiting for a connection or running); near the pool size (database.maxConnections, 10 by default) means the pool is saturated"
})
/** A statement started (`+1`) or finished (`-1`): the gauge adds the delta to its own value. */
export const trackStatementInFlight = (delta: 1 | -1): void => statementsInFlight.unsafeModify(delta, [])

/** One finished database statement. */
export const recordStatement = (kind: StatementKind, seconds: number, ok: boolean): void => {
  statementLatency.unsafeUpdate(seconds, kindTags.get(kind)!)
  statements.unsafeUpdate(1, outcomeTags.get(`${kind} ${ok ? "ok" : "error"}`)!)
}
