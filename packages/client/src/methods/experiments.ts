import { isBareDate } from "@svc/schema"
import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import type { Runtime } from "../runner.js"
import type { Path } from "../checks.js"
import { checkPart, dateOrIso, defined, endpointOf, objectIssue } from "../validate.js"
import { callMethod, type KeyCodesOf, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"

export interface SummaryInput {
  /** A `Date` or ISO 8601 string; a date without a time covers the whole UTC day. */
  readonly from?: Date | string | undefined
  readonly to?: Date | string | undefined
  /** Narrows the summary to one domain. */
  readonly domain?: string | undefined
}
export type SummaryData = SuccessOf<SvcApiClient["experiments"]["summary"]>
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
      return {
        auth: "required",
        call: callOf("experiments", "summary", { path: { id: encodedId }, urlParams }),
        toData: (value) => ({ data: value as SummaryData })
      }
    })
})
