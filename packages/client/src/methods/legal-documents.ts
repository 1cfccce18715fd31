import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import type { Runtime } from "../runner.js"
import { checkJsonSafe, checkPart, dateOrIso, endpointOf, objectIssue } from "../validate.js"
import { defineMethod, type KeyCodesOf, type SuccessOf } from "./define.js"

export interface PublishInput {
  readonly version: string
  /** Hash of the document text; the same hash with another version or date is `CONFLICT`. */
  readonly hash: string
  /** A `Date` or an ISO 8601 string; an impossible calendar date is refused before sending. */
  readonly effectiveDate: Date | string
}
export type PublishData = SuccessOf<SvcApiClient["legalDocuments"]["publish"]>
export type PublishCode = KeyCodesOf<SvcApiClient["legalDocuments"]["publish"]>

export interface LegalDocumentMethods {
  /**
   * `PUT /legal-documents/:type/current` (API key). `type` is `privacy_policy`, `dpa`,
   * `terms_and_conditions`, or one of them with `_<suffix>`. Publishing the same release again is a no-op.
   */
  readonly publish: (
    type: string,
    input: PublishInput,
    options?: SvcCallOptions
  ) => Promise<SvcResult<PublishData, PublishCode>>
}

const publish = endpointOf("legalDocuments", "publish")

export const legalDocumentMethods = (runtime: Runtime): LegalDocumentMethods => ({
  publish: defineMethod<[string, PublishInput], PublishData, PublishCode>(runtime, 2, {
    name: "legalDocuments.publish",
    needsKey: true,
    prepare: (type, input) => {
      const issues: Array<SvcIssue> = typeof type === "string"
        ? checkPart(publish.pathSchema, { type })
        : [{ path: ["type"], message: "must be a string" }]
      const shape = objectIssue(input, [], "version, hash and effectiveDate")
      if (shape.length > 0) return [...issues, ...shape]
      issues.push(...checkJsonSafe(input))
      const effectiveDate = dateOrIso(input.effectiveDate, ["effectiveDate"], issues)
      const payload = { version: input.version, hash: input.hash, effectiveDate }
      issues.push(...checkPart(publish.payloadSchema, payload).filter((issue) => issue.path[0] !== "effectiveDate"))
      if (issues.length > 0) return issues
      return {
        method: "PUT",
        route: "/legal-documents/:type/current",
        auth: "required",
        send: (api) =>
          api.legalDocuments.publish({ path: { type }, payload: payload as typeof payload & { effectiveDate: Date }, withResponse: true }),
        toData: (value) => ({ data: value as PublishData })
      }
    }
  })
})
