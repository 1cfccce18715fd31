import { type RunningServer, startServer } from "@svc/server"
import { afterAll, describe, expect, it } from "vitest"
import { cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"
import { eventually, newWebhookSecret, startReceiver } from "./support/webhook-receiver.js"

const receivers = new Map(await Promise.all(dialects.map(async (d) => [d, await startReceiver()] as const)))
afterAll(async () => {
  for (const receiver of receivers.values()) await receiver.close()
})

/*
 * A replica killed mid-delivery leaves its claim behind: the delivery stays with it until the
 * lease expires, then another replica takes it over.
 */
describe.each(dialects)("a dead replica's lease [%s]", (dialect) => {
  const receiver = receivers.get(dialect)!
  const secret = newWebhookSecret()
  const webhooks = [{ id: "crm", url: receiver.url, secret }]
  // This one only writes; the deliverer below is another replica on the same database.
  const writer = useServer(dialect, { webhooks, events: { delivery: { enabled: false } } })
  let deliverer: RunningServer | undefined
  afterAll(() => deliverer?.close())

  it("is respected until it expires, then the delivery is taken over and delivered", async () => {
    const body = cookieSave()
    expect((await save(writer, body)).status).toBe(200)
    const [event] = await writer.db().query("SELECT id FROM svc_events WHERE payload LIKE ?", [`%${body.subjectId}%`])
    const leaseUntil = Date.now() + 1_500
    // What a replica that claimed the delivery and then died leaves behind.
    await writer.db().query("UPDATE svc_event_deliveries SET claim = 'dead-replica', lease_until = ?", [leaseUntil])
    deliverer = await startServer(
      {
        database: writer.db().database,
        webhooks,
        events: { delivery: { pollIntervalMs: 20 } },
        observability: { requests: "none" }
      },
      { port: 0, host: "127.0.0.1" }
    )
    await eventually(() => receiver.delivered().some((r) => r.id === event!.id), 15_000, "delivery after the lease")
    const first = receiver.received.find((r) => r.id === event!.id)!
    expect(first.at).toBeGreaterThanOrEqual(leaseUntil)
    await eventually(
      async () => {
        const [row] = await writer.db().query("SELECT status, claim FROM svc_event_deliveries")
        return row?.status === "delivered" && row.claim === null
      },
      5_000,
      "the delivery recorded by the new replica"
    )
  })
})
