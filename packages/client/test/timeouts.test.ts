import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createSvcClient, type SvcEvent } from "../src/index.js"
import { statusBody } from "./support/fixtures.js"
import { type FakeServer, type Handler, reply, startFakeServer } from "./support/fake-server.js"

let server: FakeServer
const closed: Array<string> = []
beforeAll(async () => {
  server = await startFakeServer()
  // Node loads its fetch on the first request (over 100 ms on a busy machine): not what a
  // 100 ms deadline here is meant to measure.
  await (await fetch(`${server.origin}/warm-up`)).arrayBuffer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  closed.length = 0
})

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

const waitFor = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
}

describe("per-attempt timeout", () => {
  it("an attempt without a response ends in TIMEOUT, which is retried and retryable", async () => {
    server.handle(silent)
    const started = performance.now()
    const result = await createSvcClient({
      baseUrl: server.origin,
      timeoutMs: 100,
      retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 1 }
    }).status()
    const elapsed = performance.now() - started
    expect(elapsed).toBeGreaterThanOrEqual(190)
    expect(elapsed).toBeLessThan(2000)
    expect(server.requests).toHaveLength(2)
    expect(!result.ok && result.error).toMatchObject({ code: "TIMEOUT", retryable: true, status: undefined })
    expect(!result.ok && result.error.requestId).toBeDefined()
    await waitFor(() => closed.length === 2)
    expect(closed).toHaveLength(2)
  })

  it("the deadline covers reading the body: a slow body is a TIMEOUT carrying the status", async () => {
    server.handle(slowBody)
    const events: Array<SvcEvent> = []
    const result = await createSvcClient({
      baseUrl: server.origin,
      timeoutMs: 150,
      retry: false,
      onEvent: (event) => events.push(event)
    }).status()
    expect(!result.ok && result.error).toMatchObject({ code: "TIMEOUT", status: 200, retryable: true })
    expect(!result.ok && result.error.message).toMatch(/body/)
    expect(events.map((e) => e.type)).toEqual(["request", "response"])
    await waitFor(() => closed.length === 1)
    expect(closed).toHaveLength(1)
  })

  it("the call option timeoutMs overrides the client's", async () => {
    server.handle(silent)
    const client = createSvcClient({ baseUrl: server.origin, timeoutMs: 60_000, retry: false })
    const started = performance.now()
    const result = await client.status({ timeoutMs: 80 })
    expect(performance.now() - started).toBeLessThan(2000)
    expect(!result.ok && result.error.code).toBe("TIMEOUT")
  })

  it("a response within the deadline is not affected", async () => {
    server.handle((_, res) => setTimeout(() => reply(200, statusBody)(_, res), 50))
    const result = await createSvcClient({ baseUrl: server.origin, timeoutMs: 1000 }).status()
    expect(result.ok).toBe(true)
  })
})

describe("signal", () => {
  it("aborting an in-flight request returns ABORTED and drops the connection", async () => {
    server.handle(silent)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const result = await createSvcClient({ baseUrl: server.origin }).status({
      signal: controller.signal,
      requestId: "r-1"
    })
    expect(!result.ok && result.error).toMatchObject({ code: "ABORTED", requestId: "r-1", retryable: false })
    await waitFor(() => closed.length === 1)
    expect(closed).toEqual(["r-1"])
  })

  it("aborting while the body is read returns ABORTED", async () => {
    server.handle(slowBody)
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error("caller gave up")), 80)
    const result = await createSvcClient({ baseUrl: server.origin }).status({ signal: controller.signal })
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
