import { Context, Effect, Layer } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { natsSink } from "./nats-sink.js"
import { type EventSink, EventSinks } from "../config/event-sinks.js"
import { webhookSink } from "./webhook-sink.js"

/**
 * The instance's sinks: one per configured webhook, NATS JetStream when `events.nats` is set,
 * and those of the `events.sinks` layer a user provides. Endpoint ids must be unique.
 */
export const EventSinksLive = Layer.scoped(
  EventSinks,
  Effect.gen(function*() {
    const { events } = yield* SvcConfig
    const sinks: Array<EventSink> = events.webhooks.map((webhook) => webhookSink(webhook, events.delivery.timeoutMs))
    if (events.nats !== undefined) sinks.push(yield* natsSink(events.nats, events.delivery.timeoutMs))
    if (events.sinks !== undefined) {
      const context = yield* Effect.orDie(Layer.build(events.sinks))
      sinks.push(...Context.get(context, EventSinks))
    }
    const ids = sinks.map((sink) => sink.id)
    const twice = ids.find((id, i) => ids.indexOf(id) !== i)
    if (twice !== undefined)
      return yield* Effect.dieMessage(`Two event sinks share the endpoint id ${JSON.stringify(twice)}`)
    return sinks
  })
)
