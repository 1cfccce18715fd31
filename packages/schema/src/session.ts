import { Schema } from "effect"
import { SafeText } from "./ids.js"
import { Journey, LanguageCode, ResolutionStatus } from "./manifest.js"
import { MatchedBy, PolicyModel } from "./policy.js"

/**
 * Where a session report came from: a host's init route (`route`), a server-rendered page
 * (`render`), or the backend's own `/init` (`init`).
 *
 * @example
 * ```ts
 * import type { SessionSource } from "@svc/schema"
 *
 * // Page views per source, to see how many resolutions a host makes from its cached manifest.
 * const views: Record<typeof SessionSource.Type, number> = { route: 0, render: 0, init: 0 }
 * const count = (source: typeof SessionSource.Type) => views[source]++
 * ```
 */
export const SessionSource = Schema.Literal("route", "render", "init").annotations({ identifier: "SessionSource" })

const SessionReportFields = {
  revision: SafeText(128),
  resolution: ResolutionStatus,
  policy: Schema.NullOr(
    Schema.Struct({
      id: SafeText(64),
      fingerprint: SafeText(128),
      matchedBy: MatchedBy,
      model: PolicyModel
    })
  ),
  country: SafeText(8),
  region: Schema.NullOr(SafeText(16)),
  language: LanguageCode,
  gpc: Schema.Boolean,
  journey: Schema.optional(Journey)
}

/**
 * `POST /sessions` body: a resolution a host made from a cached manifest. `init` is reserved.
 *
 * @example
 * ```ts
 * import { SessionReportInput } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A server-rendered page resolved the visitor's rule from its cached manifest and reports it.
 * const body = Schema.encodeSync(SessionReportInput)({
 *   source: "render",
 *   revision: "q1Xb0yK3n9TzR4LmVw2c8A",
 *   resolution: "matched",
 *   policy: { id: "eu", fingerprint: "Jd8Kq2mX0pR7vT4yZb1cNw", matchedBy: "country", model: "opt-in" },
 *   country: "DE",
 *   region: null,
 *   language: "de",
 *   gpc: false
 * })
 * await fetch("https://consent.example.com/sessions", {
 *   method: "POST",
 *   headers: { "content-type": "application/json", "x-svc-version": "3.0.0", "x-svc-client-ip": "203.0.113.7" },
 *   body: JSON.stringify(body)
 * })
 * ```
 */
export const SessionReportInput = Schema.Struct({
  source: Schema.Literal("route", "render"),
  ...SessionReportFields
}).annotations({ identifier: "SessionReportInput" })
export type SessionReportInput = typeof SessionReportInput.Type

/**
 * What `sessions.onReport` receives, from `POST /sessions` or from the backend's own `/init`.
 *
 * @example
 * ```ts
 * import { svcInstance } from "@svc/backend"
 * import type { SessionReport } from "@svc/schema"
 *
 * // Page views per matched rule (or per resolution status when none matched), for a dashboard.
 * const views = new Map<string, number>()
 * const onReport = (report: SessionReport) => {
 *   const key = report.policy?.id ?? report.resolution
 *   views.set(key, (views.get(key) ?? 0) + 1)
 * }
 *
 * export const svc = svcInstance({ database: { dialect: "sqlite", url: "./svc.db" }, sessions: { onReport } })
 * ```
 */
export const SessionReport = Schema.Struct({
  source: SessionSource,
  ...SessionReportFields,
  userAgent: Schema.NullOr(Schema.String),
  ipAddress: Schema.NullOr(Schema.String),
  receivedAt: Schema.DateFromSelf
}).annotations({ identifier: "SessionReport" })
export type SessionReport = typeof SessionReport.Type
