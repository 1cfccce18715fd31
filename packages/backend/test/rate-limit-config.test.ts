import { svcInstance, type SvcOptions } from "@svc/backend"
import { describe, expect, it } from "vitest"
import { problemsOf } from "./support/config-problems.js"

const database = { dialect: "sqlite", url: ":memory:" } as const

const rateLimitProblems = (rateLimit: unknown) => problemsOf({ database, rateLimit })

describe("rateLimit option validation", () => {
  it("accepts the memory store, a Redis URL, rules, and false for the default groups", async () => {
    for (const rateLimit of [
      {},
      { store: "memory" },
      {
        store: { redis: "redis://127.0.0.1:6379/2", keyPrefix: "site-a:" },
        publicWrites: { limit: 10, windowSeconds: 1 }
      },
      { store: { redis: "rediss://user:pw@cache.example:6380" }, publicWrites: false, admin: false },
      { init: { limit: 1000 }, manifest: { limit: 100 }, scripts: { limit: 100, windowSeconds: 10 } }
    ]) {
      await svcInstance({ database, rateLimit } as SvcOptions).dispose()
    }
  })

  it("lists every problem, and never repeats a Redis URL (it may hold a password)", () => {
    const problems = rateLimitProblems({
      store: { redis: "http://user:s3cret@cache.example", extra: 1 },
      publicWrites: { limit: 0 },
      admin: { limit: 5, windowSeconds: 1.5 },
      init: true,
      everything: { limit: 1 }
    })
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/^rateLimit\.publicWrites/),
      expect.stringMatching(/^rateLimit\.admin\.windowSeconds/),
      expect.stringMatching(/^rateLimit\.init/),
      "rateLimit.everything: unknown option",
      "rateLimit.store.extra: unknown option",
      "rateLimit.store.redis: must be a redis:// or rediss:// URL"
    ]))
    expect(problems.join("\n")).not.toContain("s3cret")
  })

  it("refuses a store that is neither memory nor a redis:// URL, without echoing it", () => {
    expect(rateLimitProblems({ store: "redis://:s3cret@cache.example" })).toEqual([
      `rateLimit.store: must be "memory" or { redis: "redis://…" }`
    ])
    expect(rateLimitProblems({ store: { redis: "http://user:s3cret@cache.example", extra: 1 } })).toEqual([
      "rateLimit.store.extra: unknown option",
      "rateLimit.store.redis: must be a redis:// or rediss:// URL"
    ])
    expect(rateLimitProblems({ store: { redis: "redis://cache.example", keyPrefix: "" } })).toEqual([
      "rateLimit.store.keyPrefix: must be a non-empty string"
    ])
  })
})
