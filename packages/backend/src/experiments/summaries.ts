import type { DatabaseError, InvalidRequest } from "@svc/api"
import type { ExperimentSummary } from "@svc/schema"
import { Effect } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { type ArmCountRow, ExperimentsRepo } from "./repository.js"
import { parseSummaryWindow } from "../period/window.js"

/** Every action and surface key a summary reports, zero or not; anything else counts as `unknown`. */
export const SUMMARY_ACTIONS = ["accept_all", "reject_all", "custom", "opt_out", "unknown"] as const
export const SUMMARY_SURFACES = ["banner", "dialog", "widget", "api", "unknown"] as const

const keyOf = (keys: ReadonlyArray<string>, value: string | null): string =>
  value !== null && keys.includes(value) ? value : "unknown"

const zeros = (keys: ReadonlyArray<string>): Record<string, number> => Object.fromEntries(keys.map((k) => [k, 0]))

/** Folds the per (arm, action, surface) counts into one entry per arm, arms in name order. */
const foldArms = (rows: ReadonlyArray<ArmCountRow>, medians: ReadonlyMap<string, number>) => {
  const arms = new Map<
    string,
    { choices: number; byAction: Record<string, number>; bySurface: Record<string, number> }
  >()
  for (const row of rows) {
    let arm = arms.get(row.arm)
    if (arm === undefined) {
      arm = { choices: 0, byAction: zeros(SUMMARY_ACTIONS), bySurface: zeros(SUMMARY_SURFACES) }
      arms.set(row.arm, arm)
    }
    arm.choices += row.choices
    arm.byAction[keyOf(SUMMARY_ACTIONS, row.action)]! += row.choices
    arm.bySurface[keyOf(SUMMARY_SURFACES, row.surface)]! += row.choices
  }
  return [...arms.keys()].sort().map((name) => ({
    arm: name,
    ...arms.get(name)!,
    medianTimeToDecisionMs: medians.get(name) ?? null
  }))
}

/**
 * A summary window's end: an ISO 8601 date or date-time (a bare `to` date covers its whole UTC day), or a `Date`.
 *
 * @example
 * ```ts
 * import { Experiments, type SummaryBound } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // The last seven days up to now; "2026-01-31" would do as a bound as well.
 * const lastWeek = (now: Date): { readonly from: SummaryBound; readonly to: SummaryBound } =>
 *   ({ from: new Date(now.getTime() - 7 * 86_400_000), to: now })
 * export const weekly = Effect.flatMap(Experiments, (experiments) =>
 *   experiments.summary("banner-copy", { ...lastWeek(new Date()), domain: "www.example.com" }))
 * ```
 */
export type SummaryBound = string | Date

const boundText = (bound: SummaryBound | undefined): string | undefined =>
  bound instanceof Date ? (Number.isFinite(bound.getTime()) ? bound.toISOString() : "invalid Date") : bound

/**
 * Banner experiments: per-arm results (`GET /experiments/:id/summary`) for the instance's tenant,
 * from the `experiment`, `action`, `surface` and `timeToDecisionMs` of recorded acts.
 *
 * @example
 * ```ts
 * import { Experiments } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * const january = Effect.flatMap(Experiments, (experiments) =>
 *   experiments.summary("banner-copy", { from: "2026-01-01", to: "2026-01-31", domain: "example.com" }))
 * ```
 */
export class Experiments extends Effect.Service<Experiments>()("@svc/backend/Experiments", {
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* ExperimentsRepo
    const tenantId = config.tenantId ?? ""

    /** Both bounds inclusive; without them every act of the experiment counts. */
    const summary = (
      experimentId: string,
      params: {
        readonly from?: SummaryBound | undefined
        readonly to?: SummaryBound | undefined
        readonly domain?: string | undefined
      } = {},
      /** `medians: false` skips the time-to-decision query (every median is then `null`): the insight page shows none. */
      options: { readonly medians?: boolean } = {}
    ): Effect.Effect<ExperimentSummary, InvalidRequest | DatabaseError> =>
      Effect.gen(function*() {
        const window = yield* parseSummaryWindow({
          from: boundText(params.from),
          to: boundText(params.to),
          domain: params.domain
        })
        const scope = { tenantId, experimentId, ...window }
        const [counts, medians] = yield* orDatabaseError(
          Effect.all([repo.armCounts(scope), options.medians === false ? Effect.succeed([]) : repo.armMedians(scope)], {
            concurrency: 2
          })
        )
        return {
          experimentId,
          from: window.fromMs === null ? null : new Date(window.fromMs).toISOString(),
          to: window.toMs === null ? null : new Date(window.toMs).toISOString(),
          domain: window.domain,
          arms: foldArms(counts, new Map(medians.map((m) => [m.arm, m.median])))
        }
      })

    return { summary } as const
  }),
  dependencies: [ExperimentsRepo.Default]
}) {}
