import { defineConfig } from "@svc/backend"

// The example's stand-ins for your Kafka producer and your database settings.
export const sent: Array<{ topic: string; messages: Array<{ key: string; value: string }> }> = []
const producer = { send: async (record: (typeof sent)[number]) => void sent.push(record) }
const database = { dialect: "sqlite" as const, url: ":memory:" }

import { Delivered, EventSinks, RetryLater } from "@svc/backend"
import { Effect, Layer } from "effect"

const KafkaSink = Layer.succeed(EventSinks, [{
  id: "kafka", // names the endpoint in /events/deliveries
  accepts: (type) => type !== "legal_document.published",
  deliver: (event) =>
    Effect.tryPromise(() => producer.send({ topic: "consent", messages: [{ key: event.id, value: event.body }] })).pipe(
      Effect.match({ onFailure: () => new RetryLater({ reason: "kafka unavailable" }), onSuccess: () => new Delivered({}) })
    )
}])

export default defineConfig({ database, events: { sinks: KafkaSink } })
