import type { SvcEventType } from "@svc/schema"
import { Context, Data, type Effect } from "effect"

/**
 * One event as a sink receives it: the JSON body is exactly what was stored in the outbox.
 *
 * @example
 * ```ts
 * import type { OutgoingEvent } from "@svc/backend"
 *
 * // A Kafka message: keyed by the event id (consumers deduplicate on it), the type in a header.
 * const toKafkaMessage = (event: OutgoingEvent) => ({
 *   key: event.id,
 *   value: event.body,
 *   headers: { "svc-event-type": event.type, "svc-attempt": String(event.attempt) }
 * })
 * ```
 */
export interface OutgoingEvent {
  readonly id: string
  readonly type: SvcEventType
  /** The event as JSON text (`{ id, type, occurredAt, tenantId, data }`). */
  readonly body: string
  /** 1 on the first attempt. */
  readonly attempt: number
}

/**
 * The event reached the sink (a 2xx, a stream acknowledgement).
 *
 * @example
 * ```ts
 * import { Delivered, type EventSink, RetryLater } from "@svc/backend"
 * import { Effect } from "effect"
 * import { Redis } from "ioredis"
 *
 * // A Redis Streams sink: the event is delivered once XADD has returned its entry id.
 * const redis = new Redis(process.env.REDIS_URL!)
 * const stream: EventSink["deliver"] = (event) =>
 *   Effect.tryPromise(() => redis.xadd("svc:events", "*", "id", event.id, "body", event.body)).pipe(
 *     Effect.as(new Delivered({})),
 *     Effect.orElseSucceed(() => new RetryLater({ reason: "redis unavailable" }))
 *   )
 * ```
 */
export class Delivered extends Data.TaggedClass("Delivered")<{ readonly status?: number }> {}

/**
 * Try again later: at `retryAfterMs` from now when the sink said so (`Retry-After`), else by the schedule.
 *
 * @example
 * ```ts
 * import { Delivered, type OutgoingEvent, RetryLater } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A queue that throttles: its own back-off hint wins over svc's schedule.
 * const deliver = (event: OutgoingEvent) =>
 *   Effect.tryPromise(() => fetch("https://queue.example.com/svc", { method: "POST", body: event.body })).pipe(
 *     Effect.map(({ ok, status }) =>
 *       status === 429
 *         ? new RetryLater({ reason: "throttled", status, retryAfterMs: 30_000 })
 *         : ok ? new Delivered({ status }) : new RetryLater({ reason: `HTTP ${status}`, status })),
 *     Effect.catchAll(() => Effect.succeed(new RetryLater({ reason: "queue unreachable" })))
 *   )
 * ```
 */
export class RetryLater extends Data.TaggedClass("RetryLater")<{
  readonly reason: string
  readonly status?: number
  readonly retryAfterMs?: number
}> {}

/**
 * The endpoint is gone (410): stop sending to it until an operator retries one of its deliveries.
 *
 * @example
 * ```ts
 * import { Delivered, EndpointGone, type EventSink, RetryLater } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A chat channel's incoming webhook: once the channel is deleted, nothing is sent until an operator retries.
 * const post = (text: string) =>
 *   fetch(process.env.CHAT_WEBHOOK_URL!, { method: "POST", body: JSON.stringify({ text }) })
 * const chat: EventSink["deliver"] = (event) =>
 *   Effect.tryPromise(() => post(`svc: ${event.type}`)).pipe(
 *     Effect.map(({ ok, status }) =>
 *       status === 404 || status === 410
 *         ? new EndpointGone({ reason: "the channel's webhook was removed", status })
 *         : ok ? new Delivered({ status }) : new RetryLater({ reason: `HTTP ${status}`, status })),
 *     Effect.orElseSucceed(() => new RetryLater({ reason: "chat unreachable" }))
 *   )
 * ```
 */
export class EndpointGone
  extends Data.TaggedClass("EndpointGone")<{ readonly reason: string; readonly status?: number }> {}

/**
 * What a sink's `deliver` answers: `Delivered`, `RetryLater` (with an optional delay) or
 * `EndpointGone` (stop until an operator retries).
 *
 * @example
 * ```ts
 * import { Delivered, type DeliveryOutcome, EndpointGone, RetryLater } from "@svc/backend"
 *
 * // An HTTP receiver's answer, judged as svc judges a webhook's.
 * const outcomeOf = (response: Response): DeliveryOutcome => {
 *   if (response.ok) return new Delivered({ status: response.status })
 *   if (response.status === 410) return new EndpointGone({ reason: "receiver is gone", status: 410 })
 *   const seconds = Number(response.headers.get("retry-after"))
 *   return seconds > 0
 *     ? new RetryLater({ reason: `HTTP ${response.status}`, status: response.status, retryAfterMs: seconds * 1000 })
 *     : new RetryLater({ reason: `HTTP ${response.status}`, status: response.status })
 * }
 * ```
 */
export type DeliveryOutcome = Delivered | RetryLater | EndpointGone

/**
 * Where events go. `id` names the endpoint in `/events/deliveries` (a webhook's id, `nats`, or
 * a custom sink's own); `accepts` filters by type. `deliver` never fails: every problem is an outcome,
 * and it must not put a secret into `reason`.
 *
 * @example
 * ```ts
 * import { Delivered, type EventSink, RetryLater } from "@svc/backend"
 * import { Effect } from "effect"
 * import { appendFile } from "node:fs/promises"
 *
 * // An append-only audit file of withdrawals and erasures, one JSON line per event.
 * const auditFile: EventSink = {
 *   id: "audit-file",
 *   accepts: (type) => type === "consent.withdrawn" || type === "subject.erased",
 *   deliver: (event) =>
 *     Effect.tryPromise(() => appendFile("/var/log/svc/audit.ndjson", `${event.body}\n`)).pipe(
 *       Effect.as(new Delivered({})),
 *       Effect.orElseSucceed(() => new RetryLater({ reason: "audit file not writable" }))
 *     )
 * }
 * ```
 */
export interface EventSink {
  readonly id: string
  readonly accepts: (type: SvcEventType) => boolean
  readonly deliver: (event: OutgoingEvent) => Effect.Effect<DeliveryOutcome>
}

/**
 * Every sink of an instance. svc builds the webhook and NATS sinks from its options; an Effect
 * user adds their own (Kafka, Redis Streams) with `events.sinks`, a layer of this tag.
 *
 * @example
 * ```ts
 * import { defineConfig, Delivered, EventSinks } from "@svc/backend"
 * import { Effect, Layer } from "effect"
 *
 * // A sink beside the webhooks: svc delivers to it with the same outbox, ordering and retries.
 * const Metrics = Layer.succeed(EventSinks, [{
 *   id: "metrics",
 *   accepts: (type) => type === "consent.recorded",
 *   deliver: (event) => Effect.as(Effect.log(`consent recorded: ${event.id}`), new Delivered({}))
 * }])
 * export default defineConfig({
 *   database: { dialect: "postgres", url: process.env.DATABASE_URL! },
 *   events: { sinks: Metrics }
 * })
 * ```
 */
export class EventSinks extends Context.Tag("@svc/backend/EventSinks")<EventSinks, ReadonlyArray<EventSink>>() {}
