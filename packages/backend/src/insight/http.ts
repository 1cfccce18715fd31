import { HttpLayerRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Layer } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { Experiments } from "../experiments/summaries.js"
import { ApiKeys } from "../access/api-keys.js"
import { bearerToken } from "../http/bearer.js"
import { errorResponse } from "../http/error-response.js"
import { ipLimit } from "../http/rate-limit.js"
import { RateLimits } from "../limits/rate-limits.js"
import { type InsightData, renderInsight, renderLogin } from "./page.js"
import { InsightRepo } from "./repository.js"
import { makeInsightSessions } from "./session.js"
import { periodTotals } from "./totals.js"

const DAY_MS = 86_400_000
const MAX_DAYS = 731 // two years, a leap day included
const COOKIE = "svc_insight"
const HTML = "text/html; charset=utf-8"
const PAGE_HEADERS = {
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  // Not no-referrer: with it a browser sends `Origin: null` on the login POST, which the Origin check refuses.
  "referrer-policy": "same-origin"
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const parseDay = (text: string | undefined): number | undefined => {
  if (text === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined
  const ms = Date.parse(`${text}T00:00:00Z`)
  return Number.isNaN(ms) || isoDay(ms) !== text ? undefined : ms
}

const cookieOf = (header: string | undefined, name: string): string | undefined => {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=")
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/**
 * `GET /insight` (an API key as bearer, or the session of its login form) and
 * `POST /insight/login`. Raw routes: the page is HTML and the login takes a form body, which the
 * contract's JSON-only edge refuses (on purpose: a form is what a cross-site page can send). They
 * are mounted beside the edge, so the login does its own CSRF defence: SameSite=Strict on the
 * cookie and an Origin that must name this host.
 */
export const InsightRoutesLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    if (config.apiKeys.length === 0) return Layer.empty
    const keys = yield* ApiKeys
    const repo = yield* InsightRepo
    const summaries = yield* Experiments
    const signInLimit = ipLimit(config, yield* RateLimits, "admin")
    const sessions = makeInsightSessions(config.apiKeys)
    const cookiePath = `${config.basePath}/insight`

    const authorized = (request: HttpServerRequest.HttpServerRequest, now: number) => {
      const key = bearerToken(request.headers.authorization)
      return (key !== undefined && keys.verify(key)) || sessions.verify(cookieOf(request.headers.cookie, COOKIE), now)
    }

    const load = (fromMs: number, toMs: number, domain: string | null) =>
      Effect.gen(function*() {
        const scope = { tenantId: config.tenantId ?? "", fromMs, toMs, domain }
        const sums = periodTotals(fromMs, toMs)
        const [, releaseRows] = yield* orDatabaseError(
          Effect.all([repo.totals(scope, sums.add), repo.latestReleases(scope.tenantId)])
        )
        const totals = sums.totals()
        // The experiments with the most decisions in the period, then the summary service (the same
        // numbers as GET /experiments/:id/summary) for each.
        const experiments = yield* Effect.forEach(totals.experiments, (id) =>
          Effect.map(
            summaries.summary(id, {
              from: new Date(fromMs).toISOString(),
              to: new Date(toMs - 1).toISOString(),
              ...(domain === null ? {} : { domain })
            }, { medians: false }),
            (summary) => ({
              id,
              arms: summary.arms.map((a) => ({ arm: a.arm, choices: a.choices, acceptAll: a.byAction.accept_all ?? 0 }))
            })
          ))
        const data: InsightData = {
          from: isoDay(fromMs),
          to: isoDay(toMs - DAY_MS),
          domain,
          tenant: config.tenantId ?? null,
          days: totals.days.map(({ counts, day }) => ({ date: isoDay(day * DAY_MS), counts })),
          rules: totals.rules,
          countries: totals.countries,
          gpc: totals.gpc,
          experiments,
          releases: releaseRows.map((r) => ({
            type: r.type,
            version: r.version,
            effectiveDate: isoDay(r.effectiveDate),
            publishedAt: new Date(r.publishedAt).toISOString().slice(0, 16).replace("T", " ")
          }))
        }
        return data
      })

    const page = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const now = yield* Clock.currentTimeMillis
      if (!authorized(request, now))
        return HttpServerResponse.text(renderLogin(null), { status: 401, contentType: HTML, headers: PAGE_HEADERS })
      const params = new URL(request.url, "http://svc.invalid").searchParams
      const today = Math.floor(now / DAY_MS) * DAY_MS
      const from = params.has("from") ? parseDay(params.get("from")!) : today - 29 * DAY_MS
      const to = params.has("to") ? parseDay(params.get("to")!) : today
      if (from === undefined || to === undefined)
        return errorResponse("INVALID_REQUEST", "from and to must be dates (YYYY-MM-DD)")
      if (from > to) return errorResponse("INVALID_REQUEST", "from must not be after to")
      if ((to - from) / DAY_MS + 1 > MAX_DAYS)
        return errorResponse("INVALID_REQUEST", `The period must not exceed two years (${MAX_DAYS} days)`)
      const domain = params.get("domain")?.trim() || null
      if (domain !== null && domain.length > 255) return errorResponse("INVALID_REQUEST", "domain is too long")
      const data = yield* load(from, to + DAY_MS, domain)
      return HttpServerResponse.text(renderInsight(data), { contentType: HTML, headers: PAGE_HEADERS })
    }).pipe(
      Effect.catchTags({
        DatabaseError: () => Effect.succeed(errorResponse("DATABASE_ERROR", "The database is unavailable")),
        InvalidRequest: (error) => Effect.succeed(errorResponse("INVALID_REQUEST", error.message))
      })
    )

    const login = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const origin = request.headers.origin
      const host = request.headers.host
      let sameOrigin: boolean
      try {
        sameOrigin = origin !== undefined && host !== undefined && new URL(origin).host === host
      } catch {
        sameOrigin = false
      }
      if (!sameOrigin)
        return errorResponse("INVALID_REQUEST", "Sign in from the insight page itself (the Origin must be this host)")
      // Guessing keys is bounded by the administrative limit, counted per client IP (with `rateLimit`).
      const wait = yield* signInLimit(request)
      if (wait !== undefined) {
        return errorResponse("RATE_LIMITED", `Too many requests: retry in ${wait} s`, { "retry-after": String(wait) })
      }
      const text = yield* Effect.orElseSucceed(request.text, () => "")
      const key = text.length > 4096 ? "" : new URLSearchParams(text).get("key") ?? ""
      if (!keys.verify(key)) {
        return HttpServerResponse.text(renderLogin("That key is not an API key of this instance."), {
          status: 401,
          contentType: HTML,
          headers: PAGE_HEADERS
        })
      }
      const session = sessions.issue(yield* Clock.currentTimeMillis)
      const secure = request.headers["x-forwarded-proto"]?.split(",")[0]?.trim() === "https" ||
        request.originalUrl.startsWith("https:")
      return HttpServerResponse.empty({
        status: 303,
        headers: {
          location: cookiePath,
          "cache-control": "no-store",
          "set-cookie":
            `${COOKIE}=${session.value}; Path=${cookiePath}; Max-Age=${session.maxAge}; HttpOnly; SameSite=Strict${
              secure ? "; Secure" : ""
            }`
        }
      })
    })

    return Layer.mergeAll(
      HttpLayerRouter.add("GET", "/insight", page),
      HttpLayerRouter.add("POST", "/insight/login", login)
    )
  })
).pipe(Layer.provide(InsightRepo.Default))
