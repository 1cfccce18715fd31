import { afterAll, describe, expect, it } from "vitest"
import { bearer, call, cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"
import { eventually, newWebhookSecret, startReceiver } from "./support/webhook-receiver.js"

const API_KEY = "erasure-events-key-0123456789-012345"
const receivers = new Map(await Promise.all(dialects.map(async (d) => [d, await startReceiver()] as const)))
afterAll(async () => {
  for (const receiver of receivers.values()) await receiver.close()
})

describe.each(dialects)("erasure and the outbox [%s]", (dialect) => {
  const receiver = receivers.get(dialect)!
  const server = useServer(dialect, {
    apiKeys: [API_KEY],
    webhooks: [{ id: "crm", url: receiver.url, secret: newWebhookSecret() }],
    events: { delivery: { pollIntervalMs: 20, keepDeliveredMs: 300, retry: { baseDelayMs: 20, maxDelayMs: 40 } } }
  })
  const typesFor = (subjectId: string) =>
    receiver.delivered().filter((r) => r.body.includes(subjectId)).map((r) => JSON.parse(r.body).type as string)

  it("an erasure sends subject.erased after the subject's earlier events, and delivered events naming the subject are then deleted", async () => {
    const body = cookieSave({ externalSubjectId: "erased-user" })
    const subjectId = body.subjectId as string
    expect((await save(server, body, bearer(API_KEY))).status).toBe(200)
    await eventually(() => typesFor(subjectId).length === 1, 10_000, "consent.recorded delivered")
    const erased = await call(server, "DELETE", `/subjects/${subjectId}`, undefined, bearer(API_KEY))
    expect(erased.status).toBe(200)
    await eventually(() => typesFor(subjectId).length === 2, 10_000, "subject.erased delivered")
    expect(typesFor(subjectId)).toEqual(["consent.recorded", "subject.erased"])
    const event = JSON.parse(
      receiver.delivered().find((r) => r.body.includes("subject.erased") && r.body.includes(subjectId))!.body
    )
    expect(event.data).toEqual({
      subjectId,
      externalIds: ["erased-user"],
      erasedAt: erased.body.erasedAt,
      recordCount: 1
    })
    // Once delivered and past keepDeliveredMs, nothing in the outbox names the subject any more.
    await eventually(
      async () =>
        (await server.db().query("SELECT seq FROM svc_events WHERE payload LIKE ?", [`%${subjectId}%`])).length === 0,
      10_000,
      "the subject's events purged"
    )
  })
})
