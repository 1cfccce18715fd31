import { Delivered, type OutgoingEvent, EventSinks, RetryLater } from "@svc/backend"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"
import { eventually } from "./support/webhook-receiver.js"

/** A user's own sink as a layer of `EventSinks` (README "Consent events"): it fails every first attempt. */
const collected: Array<OutgoingEvent> = []
const seen = new Set<string>()
const CollectingSink = Layer.succeed(EventSinks, [{
  id: "collector",
  accepts: (type) => type === "consent.recorded",
  deliver: (event: OutgoingEvent) =>
    Effect.sync(() => {
      if (!seen.has(event.id)) {
        seen.add(event.id)
        return new RetryLater({ reason: "first attempts fail" })
      }
      collected.push(event)
      return new Delivered({})
    })
}])

describe.each(dialects)("a custom sink provided as a layer [%s]", (dialect) => {
  const server = useServer(dialect, {
    events: { sinks: CollectingSink, delivery: { pollIntervalMs: 20, retry: { baseDelayMs: 10, maxDelayMs: 20 } } }
  })

  it("receives the events it accepts, retried by the same schedule, with the outbox's body", async () => {
    const body = cookieSave()
    expect((await save(server, body)).status).toBe(200)
    await eventually(
      () => collected.some((e) => e.body.includes(body.subjectId as string)),
      10_000,
      "the collected event"
    )
    const event = collected.find((e) => e.body.includes(body.subjectId as string))!
    expect(event.attempt).toBe(2)
    expect(JSON.parse(event.body)).toMatchObject({
      id: event.id,
      type: "consent.recorded",
      data: { principal: { subjectId: body.subjectId } }
    })
    // The sink has the event before the deliverer records its answer: wait for that record.
    const delivery = async () => {
      const [row] = await server.db().query(
        "SELECT endpoint, status, attempts FROM svc_event_deliveries d JOIN svc_events e ON e.seq = d.event_seq WHERE e.id = ?",
        [event.id]
      )
      return row
    }
    await eventually(async () => (await delivery())?.status === "delivered", 10_000, "the delivery recorded")
    expect(await delivery()).toMatchObject({ endpoint: "collector", status: "delivered" })
  })
})
