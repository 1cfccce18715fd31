import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import { bodyOperation, type Runtime } from "../runner.js"
import { checkJsonSafe, checkPart, dateOrIso, endpointOf, objectIssue } from "../validate.js"
import { type CodesOf, callMethod, type KeyCodesOf, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"

/**
 * A legal document release: its version, the hash of its text, and the date it takes effect.
 *
 * @example
 * ```ts
 * import type { PublishInput } from "@svc/client"
 * import { createHash } from "node:crypto"
 * import { readFileSync } from "node:fs"
 *
 * // The release of the privacy policy a deploy ships: the hash ties every consent to this exact text.
 * const text = readFileSync("legal/privacy-policy.md", "utf8")
 * const release: PublishInput = {
 *   version: "2026-02",
 *   hash: createHash("sha256").update(text).digest("hex"),
 *   effectiveDate: "2026-02-01"
 * }
 * ```
 */
export interface PublishInput {
  readonly version: string
  /** Hash of the document text; the same hash with another version or date is `CONFLICT`. */
  readonly hash: string
  /** A `Date` or an ISO 8601 string; an impossible calendar date is refused before sending. */
  readonly effectiveDate: Date | string
}
/**
 * `legalDocuments.publish`'s data: the release as stored (`policy`: id `pol_…`, type, version, hash, dates).
 *
 * @example
 * ```ts
 * import type { PublishData } from "@svc/client"
 *
 * // A CI step prints what became current, as a line of its job summary.
 * const summaryLine = ({ policy }: PublishData) =>
 *   `${policy.type} ${policy.version} (${policy.id}) effective ${policy.effectiveDate.toISOString().slice(0, 10)}`
 * ```
 */
export type PublishData = SuccessOf<SvcApiClient["legalDocuments"]["publish"]>
/**
 * The codes `legalDocuments.publish` can fail with.
 *
 * @example
 * ```ts
 * import type { PublishCode } from "@svc/client"
 *
 * // A CI step fails with an explanation; CONFLICT means the same text was published with other data.
 * const explain = (code: PublishCode) =>
 *   code === "CONFLICT"
 *     ? "this text was already published with another version or effective date"
 *     : `publishing failed: ${code}`
 * ```
 */
export type PublishCode = KeyCodesOf<SvcApiClient["legalDocuments"]["publish"]>
/**
 * `legalDocuments.current`'s data: the latest release of the type (`policy`).
 *
 * @example
 * ```ts
 * import type { CurrentLegalDocumentData } from "@svc/client"
 *
 * // The site footer: "Privacy policy (version 2026-02, effective 1 February 2026)".
 * const footerText = ({ policy }: CurrentLegalDocumentData) => {
 *   const effective = policy.effectiveDate.toLocaleDateString("en-GB", { dateStyle: "long" })
 *   return `Privacy policy (version ${policy.version}, effective ${effective})`
 * }
 * ```
 */
export type CurrentLegalDocumentData = SuccessOf<SvcApiClient["legalDocuments"]["current"]>
/**
 * The codes `legalDocuments.current` can fail with: `NOT_FOUND` when no release is published.
 *
 * @example
 * ```ts
 * import type { CurrentLegalDocumentCode } from "@svc/client"
 *
 * // Nothing published yet is a normal state for a new type; other failures keep the cached release.
 * const onCurrentFailed = (code: CurrentLegalDocumentCode) =>
 *   code === "NOT_FOUND" ? "hide the link" : "use the cached release"
 * ```
 */
export type CurrentLegalDocumentCode = CodesOf<SvcApiClient["legalDocuments"]["current"]>
/**
 * `legalDocuments.list`'s data: every release of the type (`policies`), the current one first.
 *
 * @example
 * ```ts
 * import type { LegalDocumentListData } from "@svc/client"
 *
 * // The "previous versions" page lists the releases before the current one.
 * const previousVersions = ({ policies }: LegalDocumentListData) =>
 *   policies.slice(1).map((policy) => ({ version: policy.version, from: policy.effectiveDate }))
 * ```
 */
export type LegalDocumentListData = SuccessOf<SvcApiClient["legalDocuments"]["list"]>
/**
 * The codes `legalDocuments.list` can fail with.
 *
 * @example
 * ```ts
 * import type { LegalDocumentListCode } from "@svc/client"
 *
 * // The admin page shows an empty list with a hint instead of an error for a key problem.
 * const listHint = (code: LegalDocumentListCode) =>
 *   code === "MISSING_API_KEY" || code === "UNAUTHORIZED" ? "The admin API key is not configured" : null
 * ```
 */
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
      // An unreadable date is always among the issues; `effectiveDate` is checked again only for its type.
      if (issues.length > 0 || effectiveDate === undefined) return issues
      return bodyOperation(
        "required",
        callOf("legalDocuments", "publish", { path: { type }, payload: { ...payload, effectiveDate } })
      )
    }),

  current: (type, options) =>
    callMethod<CurrentLegalDocumentData, CurrentLegalDocumentCode>(
      runtime,
      { name: "legalDocuments.current", needsKey: false },
      options,
      () => {
        const issues = typeIssues(type)
        if (issues.length > 0) return issues
        return bodyOperation("none", callOf("legalDocuments", "current", { path: { type } }))
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
        return bodyOperation("required", callOf("legalDocuments", "list", { path: { type } }))
      }
    )
})
