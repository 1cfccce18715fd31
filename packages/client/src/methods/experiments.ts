import { isBareDate } from "@svc/schema"
import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import { bodyOperation, type Runtime } from "../runner.js"
import type { Path } from "../checks.js"
import { checkPart, dateOrIso, defined, endpointOf, objectIssue } from "../validate.js"
import { callMethod, type KeyCodesOf, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"

/**
 * The window and domain `experiments.summary` counts choices in; all optional.
 *
 * @example
 * ```ts
 * import type { SummaryInput } from "@svc/client"
 *
 * // The first week of the banner test on the German shop (bare dates cover whole UTC days).
 * const firstWeek = { from: "2026-03-02", to: "2026-03-08", domain: "shop.example.de" } satisfies SummaryInput
 * ```
 */
export interface SummaryInput {
  /** A `Date` or ISO 8601 string; a date without a time covers the whole UTC day. */
  readonly from?: Date | string | undefined
  readonly to?: Date | string | undefined
  /** Narrows the summary to one domain. */
  readonly domain?: string | undefined
}
/**
 * `experiments.summary`'s data: per arm, the saves and how visitors chose (`byAction`, `bySurface`,
 * median time to decide).
 *
 * @example
 * ```ts
 * import type { SummaryData } from "@svc/client"
 *
 * // The accept-all rate per arm, for the experiment's report.
 * const acceptRates = (summary: SummaryData) =>
 *   summary.arms.map((arm) => ({
 *     arm: arm.arm,
 *     acceptAll: arm.choices === 0 ? 0 : (arm.byAction["accept_all"] ?? 0) / arm.choices,
 *     medianSeconds: arm.medianTimeToDecisionMs === null ? null : arm.medianTimeToDecisionMs / 1000
 *   }))
 * ```
 */
export type SummaryData = SuccessOf<SvcApiClient["experiments"]["summary"]>
/**
 * The codes `experiments.summary` can fail with.
 *
 * @example
 * ```ts
 * import type { SummaryCode } from "@svc/client"
 *
 * // A dashboard tile says what to do instead of showing a bare code.
 * const tileMessage = (code: SummaryCode) =>
 *   code === "INVALID_INPUT"
 *     ? "Check the experiment id and the dates"
 *     : code === "UNAUTHORIZED"
 *     ? "The dashboard's API key was revoked"
 *     : "svc is unavailable, retrying"
 * ```
 */
export type SummaryCode = KeyCodesOf<SvcApiClient["experiments"]["summary"]>

export interface ExperimentMethods {
  /** `GET /experiments/:id/summary` (API key): choices per arm of a banner experiment. */
  readonly summary: (
    id: string,
    input?: SummaryInput,
    options?: SvcCallOptions
  ) => Promise<SvcResult<SummaryData, SummaryCode>>
}

const summary = endpointOf("experiments", "summary")

/** A bare date travels as written (the backend widens it to the whole day); anything else as ISO UTC. */
const wireDate = (value: unknown, path: Path, issues: Array<SvcIssue>): string | undefined => {
  if (value === undefined) return undefined
  const date = dateOrIso(value, path, issues)
  if (date === undefined) return undefined
  return typeof value === "string" && isBareDate(value) ? value : date.toISOString()
}

export const experimentMethods = (runtime: Runtime): ExperimentMethods => ({
  summary: (id, input, options) =>
    callMethod<SummaryData, SummaryCode>(runtime, { name: "experiments.summary", needsKey: true }, options, () => {
      const issues: Array<SvcIssue> = typeof id === "string"
        ? checkPart(summary.pathSchema, { id })
        : [{ path: ["id"], message: "must be a string" }]
      // The derived client puts path values into the URL as they are, so the id is encoded here.
      const encodedId = typeof id === "string" ? encodeURIComponent(id) : ""
      if (issues.length === 0 && encodedId.length > 128) {
        issues.push({ path: ["id"], message: "must be at most 128 characters once URL-encoded" })
      }
      if (input !== undefined) {
        const shape = objectIssue(input, [], "optional from, to and domain")
        if (shape.length > 0) return [...issues, ...shape]
      }
      const domain = input?.domain
      if (domain !== undefined && (typeof domain !== "string" || domain.length === 0)) {
        issues.push({ path: ["domain"], message: "must be a non-empty string" })
      }
      const urlParams = defined({
        from: wireDate(input?.from, ["from"], issues),
        to: wireDate(input?.to, ["to"], issues),
        domain
      })
      issues.push(
        ...checkPart(summary.urlParamsSchema, urlParams).filter((i) =>
          !["from", "to", "domain"].includes(String(i.path[0]))
        )
      )
      if (issues.length > 0) return issues
      return bodyOperation("required", callOf("experiments", "summary", { path: { id: encodedId }, urlParams }))
    })
})
