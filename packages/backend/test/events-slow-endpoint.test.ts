import { afterAll, describe, expect, it } from "vitest"
import { cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"
import { eventually, newWebhookSecret, startReceiver } from "./support/webhook-receiver.js"

// One receiver that never answers within the timeout, one healthy, per dialect.
const receivers = new Map(
  await Promise.all(
    dialects.map(async (d) =>
      [d, { slow: await startReceiver({ delayMs: 10_000 }), fast: await startReceiver() }] as const
    )
  )
)
afterAll(async () => {
  for (const { fast, slow } of receivers.values()) {
    await slow.close()
    await fast.close()
  }
})

/*
 * A receiver slower than the timeout is retried on its schedule, and holds up no other endpoint:
 * each endpoint has its own delivery rounds (a round waits for its slowest request).
 */
describe.each(dialects)("a slow endpoint beside a healthy one [%s]", (dialect) => {
  const { fast, slow } = receivers.get(dialect)!
  const server = useServer(dialect, {
    webhooks: [
      { id: "slow", url: slow.url, secret: newWebhookSecret() },
      { id: "fast", url: fast.url, secret: newWebhookSecret() }
    ],
    events: { delivery: { pollIntervalMs: 20, timeoutMs: 3_000, retry: { baseDelayMs: 50, maxDelayMs: 200 } } }
  })

  it("the healthy endpoint gets each event at once while the slow one times out", async () => {
    const savedAt = new Map<string, number>()
    // Each save waits for the one before at the healthy endpoint, so all but the first are saved
    // while the slow endpoint's first request is still in flight (it is held 10 s, timed out at 3 s).
    for (let i = 0; i < 8; i++) {
      const body = cookieSave()
      expect((await save(server, body)).status).toBe(200)
      savedAt.set(String(body.subjectId), Date.now())
      await eventually(() => fast.delivered().length > i, 10_000, `event ${i + 1} at the healthy endpoint`)
    }
    expect(slow.answering()).toBeGreaterThan(0)
    const lags = fast.delivered().map((r) => r.at - savedAt.get(JSON.parse(r.body).data.principal.subjectId)!)
    // Shared rounds made these wait for the slow endpoint's 3 s timeout.
    expect(Math.max(...lags)).toBeLessThan(1_500)
    const [pending] = await server.db().query(
      "SELECT COUNT(*) AS n FROM svc_event_deliveries WHERE endpoint = 'slow' AND status = 'pending'"
    )
    expect(Number(pending!.n)).toBe(8)
  })
})
