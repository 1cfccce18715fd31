import { verifyWebhook } from "@svc/client"
import { afterAll, describe, expect, it } from "vitest"
import { bearer, call, cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"
import { eventually, newWebhookSecret, type ReceivedWebhook, startReceiver } from "./support/webhook-receiver.js"

const API_KEY = "delivery-key-0123456789abcdef-012345"
const SECRET = newWebhookSecret()

/** A short schedule so retries happen within a test; the real defaults are seconds to hours. */
const fastDelivery = (overrides: Record<string, unknown> = {}) => ({
  pollIntervalMs: 20,
  timeoutMs: 300,
  leaseMs: 5_000,
  retry: { baseDelayMs: 30, maxDelayMs: 150, giveUpAfterMs: 60_000 },
  ...overrides
})

const subjectOf = (r: ReceivedWebhook): string | undefined => {
  const data = JSON.parse(r.body).data
  return data?.principal?.subjectId ?? data?.record?.principal?.subjectId ?? data?.subjectId
}

/** One receiver per dialect and block (started before the servers, which need its URL). */
const receivers = async () => new Map(await Promise.all(dialects.map(async (d) => [d, await startReceiver()] as const)))
const healthy = await receivers()
const gone = await receivers()
afterAll(async () => {
  for (const receiver of [...healthy.values(), ...gone.values()]) await receiver.close()
})

describe.each(dialects)("webhook delivery [%s]", (dialect) => {
  const receiver = healthy.get(dialect)!
  const server = useServer(dialect, {
    apiKeys: [API_KEY],
    webhooks: [{ id: "crm", url: receiver.url, secret: SECRET }],
    events: { delivery: fastDelivery() }
  })
  const forSubject = (subjectId: string) => receiver.received.filter((r) => subjectOf(r) === subjectId)
  const deliveredTo = async (subjectId: string, n: number) =>
    eventually(
      () => forSubject(subjectId).filter((r) => r.status === 204).length >= n,
      20_000,
      `${n} deliveries for ${subjectId}`
    )

  it("delivers each event once its fact commits, signed per Standard Webhooks, and records it delivered", async () => {
    receiver.behaviour.answer = undefined
    const body = cookieSave()
    expect((await save(server, body)).status).toBe(200)
    await deliveredTo(body.subjectId as string, 1)
    const [request] = forSubject(body.subjectId as string)
    expect(request!.headers["content-type"]).toBe("application/json")
    expect(request!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    const verified = verifyWebhook(request!.body, request!.headers as Record<string, string>, SECRET)
    expect(verified.ok).toBe(true)
    if (!verified.ok) throw new Error(verified.reason)
    expect(verified.event.type).toBe("consent.recorded")
    expect(verified.event.id).toBe(request!.id)
    // Another secret, or a changed body, does not verify.
    expect(verifyWebhook(request!.body, request!.headers as Record<string, string>, newWebhookSecret()).ok).toBe(false)
    expect(
      verifyWebhook(
        request!.body.replace("consent.recorded", "consent.withdrawn"),
        request!.headers as Record<string, string>,
        SECRET
      ).ok
    )
      .toBe(false)
    await eventually(
      async () => {
        const rows = await server.db().query(
          "SELECT d.status, d.attempts, d.last_status FROM svc_event_deliveries d JOIN svc_events e ON e.seq = d.event_seq WHERE e.id = ?",
          [request!.id]
        )
        return rows[0]?.status === "delivered" && Number(rows[0]?.attempts) === 1 &&
          Number(rows[0]?.last_status) === 204
      },
      5_000,
      "the delivery row marked delivered"
    )
  })

  it("retries a 500, a closed connection and a receiver slower than the timeout until a 2xx; the same webhook-id each time", async () => {
    const body = cookieSave()
    const subjectId = body.subjectId as string
    let attempt = 0
    receiver.behaviour.answer = (request) => {
      if (!request.body.includes(subjectId)) return 204
      attempt++
      return attempt === 1 ? 500 : attempt === 2 ? "close" : attempt === 3 ? { status: 204, delayMs: 600 } : 204
    }
    expect((await save(server, body)).status).toBe(200)
    await deliveredTo(subjectId, 1)
    // The slow answer is recorded when the receiver finally answers, after svc gave up on it.
    await eventually(() => forSubject(subjectId).length === 4, 5_000, "the slow answer")
    const attempts = forSubject(subjectId).sort((a, b) => a.at - b.at)
    expect(attempts.map((r) => r.status)).toEqual([500, 0, 0, 204])
    expect(new Set(attempts.map((r) => r.id)).size).toBe(1)
    expect(receiver.overlaps).toEqual([])
  })

  it("honours Retry-After", async () => {
    const body = cookieSave()
    const subjectId = body.subjectId as string
    let first = true
    receiver.behaviour.answer = (request) => {
      if (!request.body.includes(subjectId) || !first) return 204
      first = false
      return { status: 503, headers: { "retry-after": "1" } }
    }
    expect((await save(server, body)).status).toBe(200)
    await deliveredTo(subjectId, 1)
    const [refused, accepted] = forSubject(subjectId)
    expect(refused!.status).toBe(503)
    // The schedule alone would retry within 30 ms.
    expect(accepted!.at - refused!.at).toBeGreaterThanOrEqual(950)
  })

  it("keeps a subject's events in order while the receiver fails at random", async () => {
    const body = cookieSave({ givenAt: Date.now() - 100_000 })
    const subjectId = body.subjectId as string
    receiver.behaviour.answer = (request) => request.body.includes(subjectId) && Math.random() < 0.5 ? 500 : 204
    for (let i = 0; i < 6; i++) {
      expect((await save(server, { ...body, givenAt: (body.givenAt as number) + i * 1000 })).status).toBe(200)
    }
    await deliveredTo(subjectId, 6)
    const events = await server.db().query("SELECT id FROM svc_events WHERE payload LIKE ? ORDER BY seq", [
      `%${subjectId}%`
    ])
    const order = events.map((e) => e.id)
    expect(order).toHaveLength(6)
    const attempts = forSubject(subjectId)
    // No attempt of an event comes before the previous event's successful delivery.
    for (let k = 1; k < order.length; k++) {
      const previousDone = attempts.findIndex((r) => r.id === order[k - 1] && r.status === 204)
      const firstTry = attempts.findIndex((r) => r.id === order[k])
      expect(previousDone).toBeGreaterThanOrEqual(0)
      expect(firstTry).toBeGreaterThan(previousDone)
    }
    expect(receiver.overlaps).toEqual([])
  })

  it("lists pending deliveries for the operator and counts them in /status", async () => {
    const body = cookieSave()
    const subjectId = body.subjectId as string
    receiver.behaviour.answer = (request) => request.body.includes(subjectId) ? 500 : 204
    expect((await save(server, body)).status).toBe(200)
    await eventually(() => forSubject(subjectId).length >= 2, 10_000, "two failed attempts")
    const listed = await call(
      server,
      "GET",
      "/events/deliveries?status=pending&endpoint=crm",
      undefined,
      bearer(API_KEY)
    )
    expect(listed.status).toBe(200)
    const mine = listed.body.deliveries.find((d: { eventId: string }) => d.eventId === forSubject(subjectId)[0]!.id)
    expect(mine).toMatchObject({
      endpoint: "crm",
      status: "pending",
      eventType: "consent.recorded",
      lastStatus: 500,
      endpointDisabled: false
    })
    expect(mine.attempts).toBeGreaterThanOrEqual(1)
    const status = await call(server, "GET", "/status")
    expect(status.body.events.pending).toBeGreaterThanOrEqual(1)
    expect(status.body.events.disabledEndpoints).toEqual([])
    // Without the key: refused.
    expect((await call(server, "GET", "/events/deliveries")).status).toBe(401)
    expect(
      (await call(server, "GET", "/events/deliveries?status=nonsense", undefined, bearer(API_KEY))).body.cause.code
    ).toBe("INVALID_REQUEST")
    receiver.behaviour.answer = undefined
    await deliveredTo(subjectId, 1)
  })
})

describe.each(dialects)("endpoints that are gone or never answer [%s]", (dialect) => {
  const receiver = gone.get(dialect)!
  const server = useServer(dialect, {
    apiKeys: [API_KEY],
    webhooks: [{ id: "crm", url: receiver.url, secret: SECRET }],
    events: { delivery: fastDelivery({ retry: { baseDelayMs: 20, maxDelayMs: 50, giveUpAfterMs: 400 } }) }
  })
  const deliveries = async (status: string) =>
    (await call(server, "GET", `/events/deliveries?status=${status}`, undefined, bearer(API_KEY))).body
      .deliveries as Array<
        { id: string; eventId: string; status: string; endpointDisabled: boolean }
      >

  it("a delivery still failing after giveUpAfterMs is failed, counted, and sent again on retry", async () => {
    receiver.behaviour.answer = () => 500
    const body = cookieSave()
    expect((await save(server, body)).status).toBe(200)
    await eventually(async () => (await deliveries("failed")).length === 1, 10_000, "a failed delivery")
    const [failed] = await deliveries("failed")
    expect((await call(server, "GET", "/status")).body.events).toMatchObject({ failed: 1 })
    receiver.behaviour.answer = undefined
    const retried = await call(server, "POST", `/events/deliveries/${failed!.id}/retry`, undefined, bearer(API_KEY))
    expect(retried.status).toBe(200)
    expect(retried.body.status).toBe("pending")
    await eventually(() => receiver.delivered().some((r) => r.id === failed!.eventId), 10_000, "the retried delivery")
    expect((await call(server, "POST", "/events/deliveries/dlv_nope/retry", undefined, bearer(API_KEY))).status).toBe(
      404
    )
  })

  it("410 disables the endpoint (reported in /status and the list) until an operator retries", async () => {
    receiver.behaviour.answer = () => 410
    const first = cookieSave()
    expect((await save(server, first)).status).toBe(200)
    await eventually(
      async () => (await call(server, "GET", "/status")).body.events.disabledEndpoints.length === 1,
      10_000,
      "disabled"
    )
    expect((await call(server, "GET", "/status")).body.events.disabledEndpoints).toEqual(["crm"])
    const second = cookieSave()
    expect((await save(server, second)).status).toBe(200)
    const seen = receiver.received.length
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(receiver.received.length).toBe(seen)
    const pending = await deliveries("pending")
    expect(pending.length).toBe(2)
    expect(pending.every((d) => d.endpointDisabled)).toBe(true)

    receiver.behaviour.answer = undefined
    expect(
      (await call(server, "POST", `/events/deliveries/${pending[0]!.id}/retry`, undefined, bearer(API_KEY))).status
    ).toBe(200)
    await eventually(async () => (await deliveries("pending")).length === 0, 10_000, "both delivered once re-enabled")
    expect((await call(server, "GET", "/status")).body.events).toMatchObject({ disabledEndpoints: [], pending: 0 })
  })
})
