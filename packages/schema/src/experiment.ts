import { Schema } from "effect"

export const ExperimentArmSummary = Schema.Struct({
  arm: Schema.String,
  /** Saves attributed to this arm in the window. */
  choices: Schema.Int,
  /** Saves per action (`accept_all`, `reject_all`, `custom`, `opt_out`, `unknown`). */
  byAction: Schema.Record({ key: Schema.String, value: Schema.Int }),
  /** Saves per surface (`banner`, `dialog`, `widget`, `api`; `unknown` when not sent). */
  bySurface: Schema.Record({ key: Schema.String, value: Schema.Int }),
  /** Exact median of `timeToDecisionMs` over saves that sent it; `null` when none did. */
  medianTimeToDecisionMs: Schema.NullOr(Schema.Number)
}).annotations({ identifier: "ExperimentArmSummary" })

/** `GET /experiments/:id/summary`. */
export const ExperimentSummary = Schema.Struct({
  experimentId: Schema.String,
  from: Schema.NullOr(Schema.String),
  to: Schema.NullOr(Schema.String),
  domain: Schema.NullOr(Schema.String),
  arms: Schema.Array(ExperimentArmSummary)
}).annotations({ identifier: "ExperimentSummary" })
export type ExperimentSummary = typeof ExperimentSummary.Type
