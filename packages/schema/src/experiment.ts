import { Schema } from "effect"

export const ExperimentArmSummary = Schema.Struct({
  arm: Schema.String,
  /** Saves attributed to this arm in the window. */
  choices: Schema.Int.annotations({ description: "cookie_banner saves of this arm in the window" }),
  /** Saves per action (`accept_all`, `reject_all`, `custom`, `opt_out`, `unknown`). */
  byAction: Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({
    description:
      "Saves per action: accept_all, reject_all, custom, opt_out, unknown (every key present; sums to choices)"
  }),
  /** Saves per surface (`banner`, `dialog`, `widget`, `api`; `unknown` when not sent). */
  bySurface: Schema.Record({ key: Schema.String, value: Schema.Int }).annotations({
    description: "Saves per surface: banner, dialog, widget, api, unknown (every key present; sums to choices)"
  }),
  /** Exact median of `timeToDecisionMs` over saves that sent it; `null` when none did. */
  medianTimeToDecisionMs: Schema.NullOr(Schema.Number).annotations({
    description:
      "Exact median of timeToDecisionMs (ms) over the arm's saves that sent one; the average of the two middle values for an even count; null when none did"
  })
}).annotations({ identifier: "ExperimentArmSummary" })

/** `GET /experiments/:id/summary`. */
export const ExperimentSummary = Schema.Struct({
  experimentId: Schema.String,
  from: Schema.NullOr(Schema.String).annotations({
    description: "Inclusive start of the window (ISO 8601 UTC); null when unbounded"
  }),
  to: Schema.NullOr(Schema.String).annotations({
    description: "Inclusive end of the window (ISO 8601 UTC; a bare date ends at 23:59:59.999Z); null when unbounded"
  }),
  domain: Schema.NullOr(Schema.String).annotations({ description: "The domain filter; null without one" }),
  arms: Schema.Array(ExperimentArmSummary)
}).annotations({ identifier: "ExperimentSummary" })
export type ExperimentSummary = typeof ExperimentSummary.Type
