import { type RunningServer, startServer } from "@svc/server"
import { Redis } from "ioredis"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { cookieSave, save } from "./support/consent-saves.js"
import { dialects, type FreshDatabase, freshDatabase } from "./support/dialects.js"
import { optionalServers } from "./support/optional-servers.js"
import { describeWith } from "./support/server-suites.js"
import { manifest } from "./support/policy-manifest.js"
import { useServersOnOneDatabase } from "./support/shared-database.js"

// Set in CI: then Redis must be reachable, and this suite fails (never skips) when it is not.
describeWith(optionalServers.redis, "rate limits shared in Redis by two replicas", (redisUrl) => {
  const keyPrefix = `svc-test:${Date.now().toString(36)}:${randomBytes(4).toString("hex")}:`
  const options = { manifest, rateLimit: { store: { redis: redisUrl, keyPrefix }, publicWrites: { limit: 5 } } }
  let redis: Redis | undefined

  beforeAll(async () => {
    redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    await redis.connect().catch((error: unknown) => {
      throw new Error(`SVC_TEST_REDIS_URL is set but Redis is not reachable: ${String(error)}`)
    })
    expect(await redis.ping()).toBe("PONG")
  })
  afterAll(async () => {
    if (redis === undefined || redis.status !== "ready") return
    const keys = await redis.keys(`${keyPrefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    await redis.quit()
  })

  describe.each(dialects)("[%s]", (dialect) => {
    const [one, two] = useServersOnOneDatabase(dialect, [options, options])

    it("counts the saves of both replicas against one limit", async () => {
      const statuses: Array<number> = []
      for (let i = 0; i < 8; i++) statuses.push((await save(i % 2 === 0 ? one! : two!, cookieSave())).status)
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429])
      // The counter lives in Redis under the configured prefix.
      expect((await redis!.keys(`${keyPrefix}*`)).length).toBeGreaterThan(0)
      // Reset: the next dialect's servers share the prefix.
      await redis!.del(...await redis!.keys(`${keyPrefix}*`))
    })
  })
})

describe("rate limits with Redis down", () => {
  // Nothing listens on port 1: every connection attempt is refused.
  const options = { manifest, rateLimit: { store: { redis: "redis://127.0.0.1:1" }, publicWrites: { limit: 2 } } }
  const lines: Array<string> = []
  let running: RunningServer | undefined
  let db: FreshDatabase | undefined
  const spies: Array<{ mockRestore: () => void }> = []

  beforeAll(async () => {
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      spies.push(
        vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
          lines.push(args.map((a) => (typeof a === "string" ? a : String(a))).join(" "))
        })
      )
    }
    db = await freshDatabase("sqlite")
    running = await startServer({ ...options, database: db.database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1"
    })
  })
  afterAll(async () => {
    spies.forEach((spy) => spy.mockRestore())
    await running?.close()
    await db?.drop()
  })

  it("fails open: every save is stored, and the outage is logged once, without the client's noise", async () => {
    const server = { fetch: (path: string, init?: RequestInit) => fetch(running!.url + path, init) }
    for (let i = 0; i < 6; i++) {
      expect((await save(server as never, cookieSave())).status).toBe(200)
    }
    const outage = lines.filter((line) => line.includes("rate limiter store unavailable"))
    expect(outage).toHaveLength(1)
    expect(lines.some((line) => line.includes("[ioredis]"))).toBe(false)
  })
})
