import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import type { Runtime } from "../runner.js"
import { checkJsonSafe, checkPart, dateOrIso, endpointOf, objectIssue } from "../validate.js"
import { type CodesOf, defineMethod, type KeyCodesOf, type SuccessOf } from "./define.js"

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
  publish: defineMethod<[string, PublishInput], PublishData, PublishCode>(runtime, 2, {
    name: "legalDocuments.publish",
    needsKey: true,
    prepare: (type, input) => {
      const issues: Array<SvcIssue> = typeIssues(type)
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
  }),

  current: defineMethod<[string], CurrentLegalDocumentData, CurrentLegalDocumentCode>(runtime, 1, {
    name: "legalDocuments.current",
    needsKey: false,
    prepare: (type) => {
      const issues = typeIssues(type)
      if (issues.length > 0) return issues
      return {
        method: "GET",
        route: "/legal-documents/:type/current",
        auth: "none",
        send: (api) => api.legalDocuments.current({ path: { type }, withResponse: true }),
        toData: (value) => ({ data: value as CurrentLegalDocumentData })
      }
    }
  }),

  list: defineMethod<[string], LegalDocumentListData, LegalDocumentListCode>(runtime, 1, {
    name: "legalDocuments.list",
    needsKey: true,
    prepare: (type) => {
      const issues = typeIssues(type)
      if (issues.length > 0) return issues
      return {
        method: "GET",
        route: "/legal-documents/:type",
        auth: "required",
        send: (api) => api.legalDocuments.list({ path: { type }, withResponse: true }),
        toData: (value) => ({ data: value as LegalDocumentListData })
      }
    }
  })
})
