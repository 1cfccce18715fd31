import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { createSvcClient, type SvcEvent, type SvcRetryEvent } from "../src/index.js"
import { statusBody, subjectId } from "./support/fixtures.js"
import { type FakeServer, hangUp, html, reply, replyError, startFakeServer } from "./support/fake-server.js"
import { settledSoon, until, useFakeTime } from "./support/fake-time.js"

let server: FakeServer
beforeAll(async () => {
  server = await startFakeServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())
afterEach(() => {
  vi.restoreAllMocks()
  vi.useRealTimers()
})

const fast = { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 }
const make = (retry: Parameters<typeof createSvcClient>[0]["retry"] = fast, events: Array<SvcEvent> = []) =>
  createSvcClient({ baseUrl: server.origin, retry, onEvent: (event) => events.push(event) })
const retries = (events: Array<SvcEvent>) => events.filter((e): e is SvcRetryEvent => e.type === "retry")

describe("retry rule 1: what is retried", () => {
  it.each([408, 429, 500, 502, 503, 504])("HTTP %i is retried, then the success is returned", async (status) => {
    server.queue(
      status === 500 || status === 503
        ? replyError(status, status === 500 ? "INTERNAL_ERROR" : "DATABASE_ERROR")
        : html(status)
    )
    server.handle(reply(200, statusBody))
    const result = await make().status()
    expect(result.ok).toBe(true)
    expect(server.requests).toHaveLength(2)
  })

  it.each([
    [400, "INVALID_REQUEST"],
    [401, "UNAUTHORIZED"],
    [404, "NOT_FOUND"],
    [409, "CONFLICT"],
    [413, "PAYLOAD_TOO_LARGE"],
    [422, "STALE_POLICY"]
  ])("HTTP %i %s is not retried", async (status, code) => {
    server.handle(replyError(status, code, {}, "policy-changed"))
    const result = await make().subjects.get(subjectId)
    expect(result.ok).toBe(false)
    expect(server.requests).toHaveLength(1)
  })

  it("network errors are retried; the last one is returned as retryable NETWORK_ERROR without status", async () => {
    server.handle(hangUp)
    const events: Array<SvcEvent> = []
    const result = await make(fast, events).status()
    expect(server.requests).toHaveLength(3)
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: "NETWORK_ERROR", retryable: true, status: undefined })
      expect(result.error.requestId).toBeDefined()
    }
    expect(retries(events).map((e) => e.error.code)).toEqual(["NETWORK_ERROR", "NETWORK_ERROR"])
    expect(events.filter((e) => e.type === "response")).toHaveLength(0)
  })

  it("a refused connection is a NETWORK_ERROR", async () => {
    const closed = await import("./support/fake-server.js").then((m) => m.startFakeServer())
    const origin = closed.origin
    await closed.close()
    const result = await createSvcClient({ baseUrl: origin, retry: false }).status()
    expect(!result.ok && result.error.code).toBe("NETWORK_ERROR")
    expect(!result.ok && result.error.message).toMatch(/before a response arrived/)
  })

  it("maxRetries bounds the attempts; retry: false and maxRetries 0 make one attempt", async () => {
    server.handle(replyError(503, "DATABASE_ERROR"))
    const result = await make({ maxRetries: 3, initialDelayMs: 1, maxDelayMs: 2 }).status()
    expect(server.requests).toHaveLength(4)
    expect(!result.ok && result.error).toMatchObject({ code: "DATABASE_ERROR", status: 503, retryable: true })
    for (const retry of [false, { maxRetries: 0 }] as const) {
      server.reset()
      await make(retry).status()
      expect(server.requests).toHaveLength(1)
    }
  })

  it("call options override retry settings; omitted fields keep the client's values", async () => {
    server.handle(replyError(503, "DATABASE_ERROR"))
    const events: Array<SvcEvent> = []
    vi.spyOn(Math, "random").mockReturnValue(0.999999)
    await make({ maxRetries: 5, initialDelayMs: 3, maxDelayMs: 4 }, events).status({ retry: { maxRetries: 1 } })
    expect(server.requests).toHaveLength(2)
    expect(retries(events).map((e) => e.delayMs)).toEqual([3])
    server.reset()
    await make().status({ retry: false })
    expect(server.requests).toHaveLength(1)
    server.reset()
    await createSvcClient({ baseUrl: server.origin, retry: false }).status({ retry: { initialDelayMs: 1 } })
    expect(server.requests).toHaveLength(3)
  })
})

describe("retry defaults", () => {
  it("maxRetries 2 (three attempts), waits up to 200 then 400 ms", async () => {
    useFakeTime()
    server.handle(replyError(500, "INTERNAL_ERROR"))
    const events: Array<SvcEvent> = []
    vi.spyOn(Math, "random").mockReturnValue(0.999999)
    const pending = createSvcClient({ baseUrl: server.origin, onEvent: (e) => events.push(e) }).status()
    for (const [retry, delay] of [[1, 200], [2, 400]] as const) {
      await until(() => retries(events).length === retry, `retry ${retry}`)
      expect(retries(events)[retry - 1]!.delayMs).toBe(delay)
      // the wait really happens: a millisecond short of it, no new attempt
      await vi.advanceTimersByTimeAsync(delay - 1)
      expect(await settledSoon(pending)).toBe(false)
      expect(server.requests).toHaveLength(retry)
      await vi.advanceTimersByTimeAsync(1)
    }
    await pending
    expect(server.requests).toHaveLength(3)
    expect(retries(events).map((e) => e.delayMs)).toEqual([200, 400])
  })
})

describe("retry rule 2: full-jitter exponential backoff capped at maxDelayMs", () => {
  it("waits up to initialDelayMs doubled per retry, never above maxDelayMs", async () => {
    server.handle(replyError(500, "INTERNAL_ERROR"))
    const events: Array<SvcEvent> = []
    vi.spyOn(Math, "random").mockReturnValue(0.999999)
    await make({ maxRetries: 4, initialDelayMs: 10, maxDelayMs: 50 }, events).status()
    expect(retries(events).map((e) => e.delayMs)).toEqual([10, 20, 40, 50])
  })

  it("each wait is random between 0 and the cap", async () => {
    server.handle(replyError(500, "INTERNAL_ERROR"))
    const events: Array<SvcEvent> = []
    vi.spyOn(Math, "random").mockReturnValueOnce(0).mockReturnValueOnce(0.5)
    await make({ maxRetries: 2, initialDelayMs: 10, maxDelayMs: 50 }, events).status()
    expect(retries(events).map((e) => e.delayMs)).toEqual([0, 10])
  })

  it("the wait really happens", async () => {
    useFakeTime()
    server.queue(replyError(500, "INTERNAL_ERROR"))
    server.handle(reply(200, statusBody))
    vi.spyOn(Math, "random").mockReturnValue(0.999999)
    const events: Array<SvcEvent> = []
    const pending = make({ maxRetries: 1, initialDelayMs: 150, maxDelayMs: 1000 }, events).status()
    await until(() => retries(events).length === 1, "the retry")
    await vi.advanceTimersByTimeAsync(149)
    expect(await settledSoon(pending)).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect((await pending).ok).toBe(true)
    expect(server.requests).toHaveLength(2)
  })
})

describe("retry rule 3: Retry-After", () => {
  it("delay-seconds replace the backoff", async () => {
    useFakeTime()
    server.queue(replyError(503, "DATABASE_ERROR", { "retry-after": "1" }))
    server.handle(reply(200, statusBody))
    const events: Array<SvcEvent> = []
    const pending = make({ maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5000 }, events).status()
    await until(() => retries(events).length === 1, "the retry")
    expect(retries(events).map((e) => e.delayMs)).toEqual([1000])
    await vi.advanceTimersByTimeAsync(999)
    expect(await settledSoon(pending)).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect((await pending).ok).toBe(true)
  })

  it("an HTTP date replaces the backoff", async () => {
    useFakeTime()
    const at = new Date(Date.now() + 2000)
    server.queue(html(429, { "retry-after": at.toUTCString() }))
    server.handle(reply(200, statusBody))
    const events: Array<SvcEvent> = []
    const pending = make({ maxRetries: 1, initialDelayMs: 1, maxDelayMs: 5000 }, events).status()
    await until(() => retries(events).length === 1, "the retry")
    // the date has whole seconds: the wait is what is left until it
    const delay = retries(events)[0]!.delayMs
    expect(delay).toBe(Math.floor(at.getTime() / 1000) * 1000 - Date.now())
    expect(delay).toBeGreaterThan(1000)
    await vi.advanceTimersByTimeAsync(delay)
    expect((await pending).ok).toBe(true)
  })

  it("Retry-After 0 or a past date retries at once; an unreadable value falls back to the backoff", async () => {
    const events: Array<SvcEvent> = []
    vi.spyOn(Math, "random").mockReturnValue(0.999999)
    server.queue(
      html(503, { "retry-after": "0" }),
      html(503, { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }),
      html(503, { "retry-after": "soon" })
    )
    server.handle(reply(200, statusBody))
    await make({ maxRetries: 3, initialDelayMs: 7, maxDelayMs: 100 }, events).status()
    expect(retries(events).map((e) => e.delayMs)).toEqual([0, 0, 28])
  })

  it("a Retry-After longer than maxDelayMs stops retrying and returns the error", async () => {
    useFakeTime()
    server.handle(replyError(503, "DATABASE_ERROR", { "retry-after": "120" }))
    const events: Array<SvcEvent> = []
    // settles with the test's clock standing still: no wait at all
    const result = await make({ maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5000 }, events).status()
    expect(server.requests).toHaveLength(1)
    expect(retries(events)).toHaveLength(0)
    expect(!result.ok && result.error).toMatchObject({ code: "DATABASE_ERROR", status: 503, retryable: true })
  })

  it("Retry-After on a status that is not retried changes nothing", async () => {
    server.handle(replyError(409, "CONFLICT", { "retry-after": "0" }))
    await make().status()
    expect(server.requests).toHaveLength(1)
  })
})

describe("retry rules 4 and 5: one request id; a signal caps the whole call", () => {
  it("every attempt sends the same x-request-id, reported on the result", async () => {
    server.handle(replyError(500, "INTERNAL_ERROR"))
    const result = await make().status()
    const ids = new Set(server.requests.map((r) => r.headers["x-request-id"]))
    expect(server.requests).toHaveLength(3)
    expect(ids.size).toBe(1)
    expect(!result.ok && result.error.requestId).toBe([...ids][0])
    server.reset()
    await make().status({ requestId: "mine" })
    expect(server.requests.map((r) => r.headers["x-request-id"])).toEqual(["mine", "mine", "mine"])
  })

  it("aborting during a retry wait returns ABORTED at once", async () => {
    useFakeTime()
    server.handle(replyError(503, "DATABASE_ERROR", { "retry-after": "5" }))
    const controller = new AbortController()
    const events: Array<SvcEvent> = []
    const pending = make({ maxRetries: 2, initialDelayMs: 1, maxDelayMs: 10_000 }, events).status({
      signal: controller.signal,
      requestId: "r-abort"
    })
    await until(() => retries(events).length === 1, "the 5 s wait")
    controller.abort()
    // settles with the test's clock standing still, long before the 5 s wait
    const result = await pending
    expect(server.requests).toHaveLength(1)
    expect(!result.ok && result.error).toMatchObject({ code: "ABORTED", requestId: "r-abort", retryable: false })
  })

  it("AbortSignal.timeout caps the whole call across attempts", async () => {
    server.handle(html(503))
    const started = performance.now()
    const result = await make({ maxRetries: 10, initialDelayMs: 100, maxDelayMs: 100 }).status({
      signal: AbortSignal.timeout(250)
    })
    expect(performance.now() - started).toBeLessThan(1500)
    expect(!result.ok && result.error.code).toBe("ABORTED")
    expect(!result.ok && result.error.message).toMatch(/TimeoutError/)
  })
})
