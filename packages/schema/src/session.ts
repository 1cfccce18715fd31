import { Schema } from "effect"
import { SafeText } from "./ids.js"
import { Journey, LanguageCode, ResolutionStatus } from "./manifest.js"
import { MatchedBy, PolicyModel } from "./policy.js"

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

/** `POST /sessions` body: a resolution a host made from a cached manifest. `init` is reserved. */
export const SessionReportInput = Schema.Struct({
  source: Schema.Literal("route", "render"),
  ...SessionReportFields
}).annotations({ identifier: "SessionReportInput" })
export type SessionReportInput = typeof SessionReportInput.Type

/** What `sessions.onReport` receives, from `POST /sessions` or from the backend's own `/init`. */
export const SessionReport = Schema.Struct({
  source: SessionSource,
  ...SessionReportFields,
  userAgent: Schema.NullOr(Schema.String),
  ipAddress: Schema.NullOr(Schema.String),
  receivedAt: Schema.DateFromSelf
}).annotations({ identifier: "SessionReport" })
export type SessionReport = typeof SessionReport.Type
