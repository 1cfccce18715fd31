import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import type { Runtime } from "../runner.js"
import { checkJsonSafe, checkPart, dateOrIso, endpointOf, objectIssue } from "../validate.js"
import { type CodesOf, callMethod, type KeyCodesOf, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"

export interface PublishInput {
  readonly version: string
  /** Hash of the document text; the same hash with another version or date is `CONFLICT`. */
  readonly hash: string
  /** A `Date` or an ISO 8601 string; an impossible calendar date is refused before sending. */
  readonly effectiveDate: Date | string
}
export type PublishData = SuccessOf<SvcApiClient["legalDocuments"]["publish"]>
export type PublishCode = KeyCodesOf<SvcApiClient["legalDocuments"]["publish"]>
export type CurrentLegalDocumentData = SuccessOf<SvcApiClient["legalDocuments"]["current"]>
export type CurrentLegalDocumentCode = CodesOf<SvcApiClient["legalDocuments"]["current"]>
export type LegalDocumentListData = SuccessOf<SvcApiClient["legalDocuments"]["list"]>
export type LegalDocumentListCode = KeyCodesOf<SvcApiClient["legalDocuments"]["list"]>

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
  /** `GET /legal-documents/:type/current` (public): the latest release; `NOT_FOUND` when none is published. */
  readonly current: (
    type: string,
    options?: SvcCallOptions
  ) => Promise<SvcResult<CurrentLegalDocumentData, CurrentLegalDocumentCode>>
  /** `GET /legal-documents/:type` (API key): every release of the type, the current one first. */
  readonly list: (
    type: string,
    options?: SvcCallOptions
  ) => Promise<SvcResult<LegalDocumentListData, LegalDocumentListCode>>
}

const publish = endpointOf("legalDocuments", "publish")

const typeIssues = (type: unknown) =>
  typeof type === "string" ? checkPart(publish.pathSchema, { type }) : [{ path: ["type"], message: "must be a string" }]

export const legalDocumentMethods = (runtime: Runtime): LegalDocumentMethods => ({
  publish: (type, input, options) =>
    callMethod<PublishData, PublishCode>(runtime, { name: "legalDocuments.publish", needsKey: true }, options, () => {
      const issues: Array<SvcIssue> = typeIssues(type)
      const shape = objectIssue(input, [], "version, hash and effectiveDate")
      if (shape.length > 0) return [...issues, ...shape]
      issues.push(...checkJsonSafe(input))
      const effectiveDate = dateOrIso(input.effectiveDate, ["effectiveDate"], issues)
      const payload = { version: input.version, hash: input.hash, effectiveDate }
      issues.push(...checkPart(publish.payloadSchema, payload).filter((issue) => issue.path[0] !== "effectiveDate"))
      if (issues.length > 0) return issues
      return {
        auth: "required",
        call: callOf("legalDocuments", "publish", {
          path: { type },
          payload: payload as typeof payload & { effectiveDate: Date }
        }),
        toData: (value) => ({ data: value as PublishData })
      }
    }),

  current: (type, options) =>
    callMethod<CurrentLegalDocumentData, CurrentLegalDocumentCode>(
      runtime,
      { name: "legalDocuments.current", needsKey: false },
      options,
      () => {
        const issues = typeIssues(type)
        if (issues.length > 0) return issues
        return {
          auth: "none",
          call: callOf("legalDocuments", "current", { path: { type } }),
          toData: (value) => ({ data: value as CurrentLegalDocumentData })
        }
      }
    ),

  list: (type, options) =>
    callMethod<LegalDocumentListData, LegalDocumentListCode>(
      runtime,
      { name: "legalDocuments.list", needsKey: true },
      options,
      () => {
        const issues = typeIssues(type)
        if (issues.length > 0) return issues
        return {
          auth: "required",
          call: callOf("legalDocuments", "list", { path: { type } }),
          toData: (value) => ({ data: value as LegalDocumentListData })
        }
      }
    )
})
