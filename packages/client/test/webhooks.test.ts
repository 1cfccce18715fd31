import { type RunningServer, startServer } from "@svc/server"
import { randomBytes } from "node:crypto"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvcClient, type SvcClient, unwrap, verifyWebhook } from "../src/index.js"
import { createMockSvcClient, ok } from "../src/testing.js"

/*
 * verifyWebhook on what a real backend sends, and the event-delivery operator methods, live
 * (in-memory SQLite) and mocked.
 */

const apiKey = "webhooks-test-key-0123456789abcdef01"
const secret = `whsec_${randomBytes(32).toString("base64")}`
const received: Array<{ body: string; headers: IncomingHttpHeaders }> = []
let answer = 204
let receiver: Server
let server: RunningServer
let admin: SvcClient

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (c: Buffer) => chunks.push(c))
    request.on("end", () => {
      received.push({ body: Buffer.concat(chunks).toString("utf8"), headers: request.headers })
      response.writeHead(answer).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
  server = await startServer(
    {
      database: { dialect: "sqlite", url: ":memory:" },
      apiKeys: [apiKey],
      webhooks: [{ id: "crm", url, secret }],
      events: { delivery: { pollIntervalMs: 20, retry: { baseDelayMs: 20, maxDelayMs: 40 } } },
      observability: { requests: "none" }
    },
    { port: 0, host: "127.0.0.1" }
  )
  admin = createSvcClient({ baseUrl: server.url, apiKey, retry: false })
})
afterAll(async () => {
  await server?.close()
  receiver?.closeAllConnections()
  await new Promise((resolve) => receiver?.close(resolve))
})

const until = async (check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  expect(await check()).toBe(true)
}

const save = (subjectId: string) =>
  admin.subjects.create({
    type: "cookie_banner",
    domain: "example.com",
    subjectId,
    givenAt: new Date(),
    preferences: { necessary: true, measurement: true, marketing: false }
  })

describe("verifyWebhook", () => {
  it("accepts what svc sent (Headers or a plain header object) and returns the event; refuses a wrong secret, a changed body, missing headers", async () => {
    const subjectId = `sub_${randomBytes(12).toString("base64url")}`
    unwrap(await save(subjectId))
    await until(() => received.some((r) => r.body.includes(subjectId)))
    const request = received.find((r) => r.body.includes(subjectId))!
    const verified = verifyWebhook(request.body, request.headers, secret)
    expect(verified.ok && verified.event).toMatchObject({
      type: "consent.recorded",
      data: { principal: { subjectId } }
    })
    const asHeaders = new Headers(request.headers as Record<string, string>)
    expect(verifyWebhook(Buffer.from(request.body), asHeaders, secret).ok).toBe(true)
    expect(verifyWebhook(request.body, request.headers, `whsec_${randomBytes(32).toString("base64")}`).ok).toBe(false)
    expect(verifyWebhook(`${request.body} `, request.headers, secret).ok).toBe(false)
    const missing = verifyWebhook(request.body, {}, secret)
    expect(missing).toEqual({ ok: false, reason: expect.stringMatching(/webhook-id/) })
  })
})

describe("live: events.listDeliveries and events.retryDelivery", () => {
  it("lists a pending delivery and retries it; a keyless client sends nothing", async () => {
    answer = 500
    const subjectId = `sub_${randomBytes(12).toString("base64url")}`
    unwrap(await save(subjectId))
    await until(async () =>
      unwrap(await admin.events.listDeliveries({ status: "pending", endpoint: "crm" })).deliveries.length > 0
    )
    const [pending] = unwrap(await admin.events.listDeliveries({ status: "pending", limit: 10 })).deliveries
    expect(pending).toMatchObject({ endpoint: "crm", status: "pending", eventType: "consent.recorded" })
    answer = 204
    const retried = unwrap(await admin.events.retryDelivery(pending!.id))
    expect(retried.id).toBe(pending!.id)
    await until(async () => unwrap(await admin.events.listDeliveries({ status: "pending" })).deliveries.length === 0)

    const bad = await admin.events.listDeliveries({ limit: 0 })
    expect(!bad.ok && bad.error.code).toBe("INVALID_INPUT")
    const keyless = createSvcClient({ baseUrl: server.url, retry: false }) as unknown as SvcClient
    const noKey = await keyless.events.retryDelivery(pending!.id)
    expect(!noKey.ok && noKey.error.code).toBe("MISSING_API_KEY")
    const missing = await admin.events.retryDelivery("dlv_missing")
    expect(!missing.ok && missing.error.code).toBe("NOT_FOUND")
  })
})

describe("mock: events", () => {
  it("calls the handlers", async () => {
    const client = createMockSvcClient({ events: { listDeliveries: () => ok({ deliveries: [] }) } })
    expect(unwrap(await client.events.listDeliveries())).toEqual({ deliveries: [] })
    await expect(client.events.retryDelivery("dlv_x")).rejects.toThrow(/events\.retryDelivery/)
  })
})
