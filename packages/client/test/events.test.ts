import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createSvcClient, type SvcEvent } from "../src/index.js"
import { statusBody, subjectId, subjectViewBody } from "./support/fixtures.js"
import { type FakeServer, reply, replyError, startFakeServer } from "./support/fake-server.js"

let server: FakeServer
beforeAll(async () => {
  server = await startFakeServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

describe("onEvent", () => {
  it("reports request, response and retry events with their fields, per attempt", async () => {
    server.queue(replyError(503, "DATABASE_ERROR"))
    server.handle(reply(200, subjectViewBody))
    const events: Array<SvcEvent> = []
    const client = createSvcClient({
      baseUrl: server.origin,
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 1 },
      onEvent: (event) => events.push(event)
    })
    await client.subjects.get(subjectId, undefined, { requestId: "r-ev" })
    const common = { method: "GET", path: "/subjects/:id", requestId: "r-ev" }
    expect(events).toEqual([
      { type: "request", ...common, attempt: 0 },
      { type: "response", ...common, attempt: 0, status: 503, durationMs: expect.any(Number) },
      {
        type: "retry",
        path: "/subjects/:id",
        attempt: 1,
        delayMs: expect.any(Number),
        error: expect.objectContaining({ code: "DATABASE_ERROR" }),
        requestId: "r-ev"
      },
      { type: "request", ...common, attempt: 1 },
      { type: "response", ...common, attempt: 1, status: 200, durationMs: expect.any(Number) }
    ])
    const response = events[1] as Extract<SvcEvent, { type: "response" }>
    expect(response.durationMs).toBeGreaterThanOrEqual(0)
  })

  it("paths are route templates, so subject ids (a private capability) never reach logs", async () => {
    server.handle(reply(200, subjectViewBody))
    const events: Array<SvcEvent> = []
    await createSvcClient({ baseUrl: server.origin, onEvent: (e) => events.push(e) }).subjects.get(subjectId)
    expect(JSON.stringify(events)).not.toContain(subjectId)
  })

  it("an error thrown by the handler is ignored, and so is a rejected promise", async () => {
    server.handle(reply(200, statusBody))
    let calls = 0
    const throwing = createSvcClient({
      baseUrl: server.origin,
      onEvent: () => {
        calls++
        throw new Error("logger down")
      }
    })
    expect((await throwing.status()).ok).toBe(true)
    const rejecting = createSvcClient({
      baseUrl: server.origin,
      onEvent: (async () => {
        calls++
        throw new Error("async logger down")
      }) as () => void
    })
    expect((await rejecting.status()).ok).toBe(true)
    expect(calls).toBe(4)
  })

  it("sends no events for calls refused before sending", async () => {
    const events: Array<SvcEvent> = []
    const client = createSvcClient({ baseUrl: server.origin, onEvent: (e) => events.push(e) })
    await client.subjects.get("bad-id")
    expect(events).toEqual([])
  })
})
