import { type RunningServer, startServer } from "@svc/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvcClient } from "../src/index.js"

/* The backend's 429 RATE_LIMITED, as the client reports it: a documented, retryable code. */

let server: RunningServer

beforeAll(async () => {
  server = await startServer(
    {
      database: { dialect: "sqlite", url: ":memory:" },
      observability: { requests: "none" },
      manifest: {
        policyRules: [{ id: "world", match: { default: true }, model: "opt-in", categories: ["measurement"] }]
      },
      rateLimit: { publicWrites: { limit: 1, windowSeconds: 60 } }
    },
    { port: 0, host: "127.0.0.1" }
  )
})
afterAll(() => server?.close())

const save = () => ({
  type: "cookie_banner",
  domain: "example.com",
  subjectId: `sub_${crypto.randomUUID().replaceAll("-", "")}`,
  givenAt: new Date(),
  preferences: { necessary: true, measurement: true }
})

describe("RATE_LIMITED", () => {
  it("is a documented backend code, retryable, and a Retry-After longer than maxDelayMs stops the retries", async () => {
    const events: Array<string> = []
    const client = createSvcClient({
      baseUrl: server.url,
      retry: { maxRetries: 3, maxDelayMs: 1000 },
      onEvent: (event) => void events.push(event.type)
    })
    expect((await client.subjects.create(save())).ok).toBe(true)
    const limited = await client.subjects.create(save())
    expect(limited.ok).toBe(false)
    if (limited.ok) return
    expect(limited.error.code).toBe("RATE_LIMITED")
    expect(limited.error.status).toBe(429)
    expect(limited.error.retryable).toBe(true)
    // Retry-After (up to 60 s) is longer than maxDelayMs: no retry was made.
    expect(events.filter((type) => type === "retry")).toEqual([])
  })
})
