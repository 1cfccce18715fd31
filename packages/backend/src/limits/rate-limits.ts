import type { Redis } from "ioredis"
import { isIP } from "node:net"
import type { RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible"
import { Effect, Metric, Runtime } from "effect"
import { type RateLimitGroup, type ResolvedRateLimit, SvcConfig } from "../config/resolved.js"
import { RATE_LIMIT_GROUPS } from "../config/rate-limit.js"

/** Failures of the limiter's store (Redis): each one let a request through unlimited. */
export const storeFailures = Metric.counter("svc_rate_limit_store_failures_total", {
  description: "Rate-limit checks let through because the limiter's store failed",
  incremental: true
})

/** Requests refused with 429, by route group. */
export const refusals = Metric.counter("svc_rate_limit_refusals_total", { incremental: true })

/** The answer to one check: `undefined` to go on, or the seconds the client should wait. */
export type RateCheck = number | undefined

/** An IPv6 client is limited per /64 (what one subscriber is given), an IPv4 client per address. */
export const limitKeyOfIp = (ip: string): string => {
  const v4 = ip.startsWith("::ffff:") && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip
  if (isIP(v4) === 4) return v4
  const [head = "", tail = ""] = ip.toLowerCase().split("::")
  const left = head === "" ? [] : head.split(":")
  const right = tail === "" ? [] : tail.split(":")
  const groups = ip.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`
}

/** Redis settings that keep a down or slow Redis from holding requests: fail at once, reconnect in the background. */
const redisClient = (RedisClient: typeof Redis, url: string) =>
  new RedisClient(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 500,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 500, 5000)
  })

const LOG_INTERVAL_MS = 60_000

/**
 * The instance's rate limiter: per route group, `limit` requests per window per client (IP, or API
 * key for the administrative routes), counted in memory or in Redis shared by every replica. When
 * the store fails the request goes through (fail open): a limiter outage never becomes an outage of
 * consent saves. Store failures are counted and logged at most once a minute.
 */
export class RateLimits extends Effect.Service<RateLimits>()("@svc/backend/RateLimits", {
  scoped: Effect.gen(function*() {
    const config = yield* SvcConfig
    const settings = config.rateLimit
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)

    let lastLog: Record<string, number> = {}
    /** Logs a warning of this kind at most once a minute. */
    const warnOncePerMinute = (kind: string, message: string, annotations: Record<string, unknown>) => {
      const now = Date.now()
      if ((lastLog[kind] ?? -Infinity) + LOG_INTERVAL_MS > now) return
      lastLog = { ...lastLog, [kind]: now }
      runFork(Effect.logWarning(message).pipe(Effect.annotateLogs(annotations)))
    }

    const { isRefusal, limiters } = yield* makeLimiters(
      settings,
      (error) =>
        warnOncePerMinute("store", "rate limiter store unavailable; requests are let through unlimited", {
          error: error.message
        })
    )

    const consume = (group: RateLimitGroup, key: string): Effect.Effect<RateCheck> => {
      const limiter = limiters[group]
      if (limiter === undefined) return Effect.succeed(undefined)
      return Effect.flatMap(
        Effect.promise(() => limiter.consume(key).then(() => undefined, (rejection: unknown) => rejection)),
        (outcome): Effect.Effect<RateCheck> => {
          if (outcome === undefined) return Effect.succeed(undefined)
          if (isRefusal(outcome)) {
            return Effect.as(
              Metric.increment(Metric.tagged(refusals, "group", group)),
              Math.max(1, Math.ceil(outcome.msBeforeNext / 1000))
            )
          }
          warnOncePerMinute("store", "rate limiter store unavailable; requests are let through unlimited", {
            error: outcome instanceof Error ? outcome.message : String(outcome)
          })
          return Effect.as(Metric.increment(storeFailures), undefined)
        }
      )
    }

    /**
     * Counts a request of `group` against its client IP, as the HTTP layer read it (trusted headers
     * only, else the socket: `http/rate-limit.ts`); `null` when no address is known.
     */
    const consumeByIp = (group: RateLimitGroup, ip: string | null): Effect.Effect<RateCheck> => {
      if (limiters[group] === undefined) return Effect.succeed(undefined)
      if (ip === null) {
        // One shared bucket would let a single client lock everyone out: the request is not limited.
        warnOncePerMinute("ip", "rate limit skipped: the client IP is unknown (configure ipAddress.ipAddressHeaders)", {
          group
        })
        return Effect.succeed(undefined)
      }
      return consume(group, `ip:${limitKeyOfIp(ip)}`)
    }

    /** Counts an administrative request against its API key (by digest, never the key itself). */
    const consumeByKey = (keyDigest: string): Effect.Effect<RateCheck> => consume("admin", `key:${keyDigest}`)

    return { consumeByIp, consumeByKey, enabled: (group: RateLimitGroup) => limiters[group] !== undefined } as const
  })
}) {}

/**
 * The limiter of each group that has a rule, and how to tell a limiter's refusal from a store
 * failure. `rate-limiter-flexible` (and `ioredis`, for a Redis store) are loaded here, only by an
 * instance that limits something: a server without `rateLimit` never holds them.
 */
const makeLimiters = (settings: ResolvedRateLimit | undefined, onStoreError: (error: Error) => void) =>
  Effect.gen(function*() {
    const limiters: Partial<Record<RateLimitGroup, RateLimiterAbstract>> = {}
    const none = { limiters, isRefusal: (_: unknown): _ is RateLimiterRes => false }
    if (settings === undefined) return none
    const rules = RATE_LIMIT_GROUPS.flatMap((group) => {
      const rule = settings.rules[group]
      return rule === undefined ? [] : [[group, rule] as const]
    })
    if (rules.length === 0) return none
    const flexible = yield* Effect.promise(() => import("rate-limiter-flexible"))
    const isRefusal = (outcome: unknown): outcome is RateLimiterRes => outcome instanceof flexible.RateLimiterRes
    const store = settings.store
    if (store._tag === "Memory") {
      for (const [group, rule] of rules) {
        limiters[group] = new flexible.RateLimiterMemory({
          keyPrefix: group,
          points: rule.limit,
          duration: rule.windowSeconds
        })
      }
      return { limiters, isRefusal }
    }
    const { Redis: RedisClient } = yield* Effect.promise(() => import("ioredis"))
    const redis = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const client = redisClient(RedisClient, store.url)
        client.on("error", onStoreError)
        return client
      }),
      (client) => Effect.sync(() => client.disconnect())
    )
    // Give the first connection a moment so the first requests are counted; never block start-up on it.
    yield* Effect.promise(() =>
      new Promise<void>((resolve) => {
        if (redis.status === "ready") return resolve()
        const timer = setTimeout(resolve, 2000)
        const done = () => {
          clearTimeout(timer)
          redis.off("ready", done)
          redis.off("error", done)
          resolve()
        }
        redis.once("ready", done)
        redis.once("error", done)
      })
    )
    for (const [group, rule] of rules) {
      limiters[group] = new flexible.RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${store.keyPrefix}${group}`,
        points: rule.limit,
        duration: rule.windowSeconds,
        rejectIfRedisNotReady: true
      })
    }
    return { limiters, isRefusal }
  })
