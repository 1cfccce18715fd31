import type { SvcEventType } from "@svc/schema"
import { Context, Data, type Effect } from "effect"

/** One event as a sink receives it: the JSON body is exactly what was stored in the outbox. */
export interface OutgoingEvent {
  readonly id: string
  readonly type: SvcEventType
  /** The event as JSON text (`{ id, type, occurredAt, tenantId, data }`). */
  readonly body: string
  /** 1 on the first attempt. */
  readonly attempt: number
}

/** The event reached the sink (a 2xx, a stream acknowledgement). */
export class Delivered extends Data.TaggedClass("Delivered")<{ readonly status?: number }> {}

/** Try again later: at `retryAfterMs` from now when the sink said so (`Retry-After`), else by the schedule. */
export class RetryLater extends Data.TaggedClass("RetryLater")<{
  readonly reason: string
  readonly status?: number
  readonly retryAfterMs?: number
}> {}

/** The endpoint is gone (410): stop sending to it until an operator retries one of its deliveries. */
export class EndpointGone
  extends Data.TaggedClass("EndpointGone")<{ readonly reason: string; readonly status?: number }> {}

export type DeliveryOutcome = Delivered | RetryLater | EndpointGone

/**
 * Where events go. `id` names the endpoint in `/events/deliveries` (a webhook's id, `nats`, or
 * a custom sink's own); `accepts` filters by type. `deliver` never fails: every problem is an outcome,
 * and it must not put a secret into `reason`.
 */
export interface EventSink {
  readonly id: string
  readonly accepts: (type: SvcEventType) => boolean
  readonly deliver: (event: OutgoingEvent) => Effect.Effect<DeliveryOutcome>
}

/**
 * Every sink of an instance. svc builds the webhook and NATS sinks from its options; an Effect
 * user adds their own (Kafka, Redis Streams) with `events.sinks`, a layer of this tag.
 */
export class EventSinks extends Context.Tag("@svc/backend/EventSinks")<EventSinks, ReadonlyArray<EventSink>>() {}
