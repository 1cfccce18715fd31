import type { NatsConnection } from "@nats-io/transport-node"
import { Effect, Predicate } from "effect"
import { propertyOf } from "../codec/guards.js"
import { Delivered, type EventSink, type OutgoingEvent, RetryLater } from "../config/event-sinks.js"

/** The server's reason without the URL (which may carry credentials). */
const describe = (error: unknown): string => {
  const code = [propertyOf(error, "code"), propertyOf(error, "name")].find(Predicate.isString) ?? "error"
  const raw = propertyOf(error, "message")
  const message = Predicate.isString(raw) ? raw.replace(/\b\w+:\/\/\S+/g, "<url>") : ""
  return `NATS: ${code}${message === "" ? "" : ` ${message}`}`.slice(0, 300)
}

/**
 * NATS JetStream as a sink: each event is published to `subject` with its id as `Nats-Msg-Id`
 * (the stream drops a redelivery inside its duplicate window) and counts as delivered only once
 * the stream acknowledges it. The connection is opened on first use and again after it closes,
 * so svc starts, and keeps events in the outbox, while NATS is down. Closed with the scope. The NATS
 * client packages are loaded on first use, by servers that deliver to NATS only.
 */
export const natsSink = (
  settings: { readonly servers: ReadonlyArray<string>; readonly subject: string },
  timeoutMs: number
) =>
  Effect.gen(function*() {
    let connection: Promise<NatsConnection> | undefined
    const connected = () => {
      connection ??= import("@nats-io/transport-node").then(({ connect }) =>
        connect({
          servers: [...settings.servers],
          timeout: timeoutMs,
          reconnect: true,
          maxReconnectAttempts: -1
        })
      )
      const pending = connection
      pending.catch(() => {
        if (connection === pending) connection = undefined
      })
      return pending.then((nc) => {
        if (nc.isClosed() && connection === pending) connection = undefined
        return nc
      })
    }
    yield* Effect.addFinalizer(() =>
      connection === undefined
        ? Effect.void
        : Effect.promise(() => connection!.then((nc) => nc.close()).catch(() => undefined))
    )
    const sink: EventSink = {
      id: "nats",
      accepts: () => true,
      deliver: (event: OutgoingEvent) =>
        Effect.tryPromise(async () => {
          const nc = await connected()
          const { jetstream } = await import("@nats-io/jetstream")
          const ack = await jetstream(nc).publish(settings.subject, event.body, { msgID: event.id, timeout: timeoutMs })
          return ack
        }).pipe(
          Effect.match({
            onFailure: (error) => new RetryLater({ reason: describe(error.error) }),
            onSuccess: () => new Delivered({})
          })
        )
    }
    return sink
  })
