import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { createSvcClient, type SvcEvent } from "../src/index.js"
import { statusBody } from "./support/fixtures.js"
import { type FakeServer, type Handler, reply, startFakeServer } from "./support/fake-server.js"
import { settledSoon, until, useFakeTime } from "./support/fake-time.js"

let server: FakeServer
const closed: Array<string> = []
beforeAll(async () => {
  server = await startFakeServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  closed.length = 0
})
afterEach(() => vi.useRealTimers())

/** Never answers; notes when the client gives up on the connection. */
const silent: Handler = (request, res) => {
  res.on("close", () => closed.push(String(request.headers["x-request-id"])))
}

/** Sends the status line, headers and half the body, then stalls. */
const slowBody: Handler = (request, res) => {
  res.on("close", () => closed.push(String(request.headers["x-request-id"])))
  res.writeHead(200, { "content-type": "application/json" })
  res.write(JSON.stringify(statusBody).slice(0, 20))
}

describe("per-attempt timeout", () => {
  it("an attempt without a response ends in TIMEOUT, which is retried and retryable", async () => {
    useFakeTime()
    server.handle(silent)
    const pending = createSvcClient({
      baseUrl: server.origin,
      timeoutMs: 100,
      retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 1 }
    }).status()
    for (const attempt of [1, 2]) {
      await until(() => server.requests.length === attempt, `attempt ${attempt}`)
      await vi.advanceTimersByTimeAsync(99)
      expect(await settledSoon(pending)).toBe(false)
      expect(server.requests).toHaveLength(attempt)
      await vi.advanceTimersByTimeAsync(2) // the deadline, then the retry wait (at most 1 ms)
    }
    const result = await pending
    expect(server.requests).toHaveLength(2)
    expect(!result.ok && result.error).toMatchObject({ code: "TIMEOUT", retryable: true, status: undefined })
    expect(!result.ok && result.error.requestId).toBeDefined()
    await until(() => closed.length === 2, "both connections closed")
  })

  it("the deadline covers reading the body: a slow body is a TIMEOUT carrying the status", async () => {
    useFakeTime()
    server.handle(slowBody)
    const events: Array<SvcEvent> = []
    let headersRead = false
    const pending = createSvcClient({
      baseUrl: server.origin,
      timeoutMs: 150,
      retry: false,
      onEvent: (event) => events.push(event),
      fetch: async (url, init) => {
        const response = await fetch(url, init)
        headersRead = true
        return response
      }
    }).status()
    await until(() => headersRead, "the status line and headers")
    await vi.advanceTimersByTimeAsync(149)
    expect(await settledSoon(pending)).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const result = await pending
    expect(!result.ok && result.error).toMatchObject({ code: "TIMEOUT", status: 200, retryable: true })
    expect(!result.ok && result.error.message).toMatch(/body/)
    expect(events.map((e) => e.type)).toEqual(["request", "response"])
    await until(() => closed.length === 1, "the connection closed")
  })

  it("the call option timeoutMs overrides the client's", async () => {
    useFakeTime()
    server.handle(silent)
    const client = createSvcClient({ baseUrl: server.origin, timeoutMs: 60_000, retry: false })
    const pending = client.status({ timeoutMs: 80 })
    await until(() => server.requests.length === 1, "the request")
    await vi.advanceTimersByTimeAsync(80)
    const result = await pending
    expect(!result.ok && result.error.code).toBe("TIMEOUT")
  })

  it("a response within the deadline is not affected", async () => {
    useFakeTime()
    let answer: (() => void) | undefined
    server.handle((request, res) => (answer = () => reply(200, statusBody)(request, res)))
    const pending = createSvcClient({ baseUrl: server.origin, timeoutMs: 1000 }).status()
    await until(() => answer !== undefined, "the request")
    await vi.advanceTimersByTimeAsync(999)
    answer!()
    expect((await pending).ok).toBe(true)
  })
})

describe("signal", () => {
  it("aborting an in-flight request returns ABORTED and drops the connection", async () => {
    server.handle(silent)
    const controller = new AbortController()
    const pending = createSvcClient({ baseUrl: server.origin }).status({
      signal: controller.signal,
      requestId: "r-1"
    })
    await until(() => server.requests.length === 1, "the request")
    controller.abort()
    const result = await pending
    expect(!result.ok && result.error).toMatchObject({ code: "ABORTED", requestId: "r-1", retryable: false })
    await until(() => closed.length === 1, "the connection closed")
    expect(closed).toEqual(["r-1"])
  })

  it("aborting while the body is read returns ABORTED", async () => {
    server.handle(slowBody)
    const controller = new AbortController()
    let headersRead = false
    const client = createSvcClient({
      baseUrl: server.origin,
      fetch: async (url, init) => {
        const response = await fetch(url, init)
        headersRead = true
        return response
      }
    })
    const pending = client.status({ signal: controller.signal })
    await until(() => headersRead, "the status line and headers")
    controller.abort(new Error("caller gave up"))
    const result = await pending
    expect(!result.ok && result.error.code).toBe("ABORTED")
    expect(!result.ok && result.error.cause).toBeInstanceOf(Error)
  })

  it("a signal aborted by an event handler stops the attempt it announced", async () => {
    server.handle(silent)
    const controller = new AbortController()
    const client = createSvcClient({
      baseUrl: server.origin,
      onEvent: (event) => {
        if (event.type === "request") controller.abort()
      }
    })
    const started = performance.now()
    const result = await client.status({ signal: controller.signal })
    expect(performance.now() - started).toBeLessThan(1000)
    expect(!result.ok && result.error.code).toBe("ABORTED")
  })

  it("an already aborted signal sends nothing", async () => {
    server.handle(reply(200, statusBody))
    const result = await createSvcClient({ baseUrl: server.origin }).status({ signal: AbortSignal.abort() })
    expect(!result.ok && result.error).toMatchObject({ code: "ABORTED", requestId: undefined })
    expect(server.requests).toHaveLength(0)
  })

  it("a signal that never fires leaves the call alone", async () => {
    server.handle(reply(200, statusBody))
    const controller = new AbortController()
    const result = await createSvcClient({ baseUrl: server.origin }).status({ signal: controller.signal })
    expect(result.ok).toBe(true)
    controller.abort()
  })
})
