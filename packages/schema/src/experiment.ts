import { Schema } from "effect"

/**
 * One arm of a banner experiment over the window: its cookie-banner saves, split by action and by
 * surface, and the median time to decision.
 *
 * @example
 * ```ts
 * import type { ExperimentArmSummary } from "@svc/schema"
 *
 * // The accept-all rate the dashboard compares between arms (null when the arm had no saves).
 * const acceptAllRate = (arm: typeof ExperimentArmSummary.Type) =>
 *   arm.choices === 0 ? null : (arm.byAction.accept_all ?? 0) / arm.choices
 * ```
 */
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

/**
 * `GET /experiments/:id/summary`.
 *
 * @example
 * ```ts
 * import { Experiments } from "@svc/backend"
 * import type { ExperimentSummary } from "@svc/schema"
 * import { Effect } from "effect"
 *
 * const lines = (summary: ExperimentSummary) =>
 *   summary.arms.map((arm) => `${arm.arm}: ${arm.choices} saves, median ${arm.medianTimeToDecisionMs ?? "–"} ms`)
 *
 * // January's report of the banner-copy experiment on the shop.
 * const report = Experiments.pipe(
 *   Effect.flatMap((experiments) =>
 *     experiments.summary("banner-copy", { from: "2026-01-01", to: "2026-01-31", domain: "shop.example.com" })
 *   ),
 *   Effect.map(lines)
 * )
 * ```
 */
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
