import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcResult } from "../result.js"
import { bodyOperation, type Runtime } from "../runner.js"
import { checkJsonSafe, checkPart, checkTypeList, defined, endpointOf, objectIssue } from "../validate.js"
import { type CodesOf, callMethod, type KeyCodesOf, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"
import { prepareCreate, type SaveConsentInput } from "./subjects-create.js"

type Subjects = SvcApiClient["subjects"]

/**
 * Who `subjects.identify` links the subject to: a user ID, its identity provider, and an identity
 * token when there is no API key.
 *
 * @example
 * ```ts
 * import type { IdentifyInput } from "@svc/client"
 *
 * // From the browser's side (no API key): the token minted at sign-in makes the link verified.
 * const linkInput = (userId: string, identityToken: string) =>
 *   ({ externalId: userId, identityProvider: "auth0", identityToken }) satisfies IdentifyInput
 * ```
 */
export interface IdentifyInput {
  readonly externalId: string
  /** Stored as `external` when omitted; an identity token naming an `idp` must match it. */
  readonly identityProvider?: string | undefined
  /** Verifies the link without an API key (see `createIdentityToken`). */
  readonly identityToken?: string | undefined
}
/**
 * `subjects.identify`'s data: the linked `subject` (`id`, `externalId`, `identityProvider`, `verified`).
 *
 * @example
 * ```ts
 * import type { IdentifyData } from "@svc/client"
 *
 * // Only a verified link counts for consents.check: say so in the audit trail.
 * const auditEntry = ({ subject }: IdentifyData) => {
 *   const state = subject.verified ? "verified" : "unverified"
 *   return `${subject.id} linked to ${subject.identityProvider}:${subject.externalId} (${state})`
 * }
 * ```
 */
export type IdentifyData = SuccessOf<Subjects["identify"]>
/**
 * The codes `subjects.identify` can fail with.
 *
 * @example
 * ```ts
 * import type { IdentifyCode } from "@svc/client"
 *
 * // After sign-in a failed link never blocks the user; some failures are still worth a log line.
 * const logLevel = (code: IdentifyCode) =>
 *   code === "NOT_FOUND" ? "debug" // no consent saved from this browser yet
 *   : code === "IDENTITY_CONFLICT" || code === "IDENTITY_TOKEN_INVALID" ? "warn"
 *   : "error"
 * ```
 */
export type IdentifyCode = CodesOf<Subjects["identify"]>

/**
 * Narrows `subjects.get` to some policy types (their records and `isValid`; `subjectChoice` is not filtered).
 *
 * @example
 * ```ts
 * import type { GetSubjectInput, SvcPublicClient } from "@svc/client"
 *
 * // The account page asks only about the banner; legal document records are left out.
 * const bannerOnly: GetSubjectInput = { types: ["cookie_banner"] }
 * const bannerChoice = (svc: SvcPublicClient, subjectId: string) => svc.subjects.get(subjectId, bannerOnly)
 * ```
 */
export interface GetSubjectInput {
  /** Restricts the consent records returned and `isValid`; `subjectChoice` is not filtered. */
  readonly types?: ReadonlyArray<string> | undefined
}
/**
 * `subjects.get`'s data: the subject, its consent records, whether they are valid, and the merged
 * choice per category (`subjectChoice`, `null` before any banner save) and per vendor.
 *
 * @example
 * ```ts
 * import type { SubjectData } from "@svc/client"
 *
 * // Server-side tag loading: only the categories the visitor granted, and only while the consent is valid.
 * const grantedCategories = (subject: SubjectData) => {
 *   if (!subject.isValid || subject.subjectChoice === null) return []
 *   const receipts = Object.entries(subject.subjectChoice.categories)
 *   return receipts.filter(([, receipt]) => receipt?.value === true).map(([category]) => category)
 * }
 * ```
 */
export type SubjectData = SuccessOf<Subjects["get"]>
/**
 * The codes `subjects.get` can fail with: `NOT_FOUND` for a subject with no saved consent.
 *
 * @example
 * ```ts
 * import type { GetSubjectCode } from "@svc/client"
 *
 * // An unknown subject is a visitor who has not chosen yet: show the banner; other failures load no tags.
 * const onGetFailed = (code: GetSubjectCode) => (code === "NOT_FOUND" ? "show-banner" : "load-necessary-only")
 * ```
 */
export type GetSubjectCode = CodesOf<Subjects["get"]>

/**
 * `subjects.create`'s data: the stored consent (`consentId` `cns_…`), the preferences applied, and
 * where its policy came from.
 *
 * @example
 * ```ts
 * import type { CreateConsentData } from "@svc/client"
 *
 * // The confirmation the app keeps: the consent id is what a later proof (log.proof) asks for.
 * const receipt = (saved: CreateConsentData) => ({
 *   consentId: saved.consentId,
 *   at: saved.givenAt.toISOString(),
 *   marketing: saved.appliedPreferences?.marketing ?? false
 * })
 * ```
 */
export type CreateConsentData = SuccessOf<Subjects["create"]>
/**
 * The codes `subjects.create` can fail with.
 *
 * @example
 * ```ts
 * import type { CreateConsentCode } from "@svc/client"
 *
 * // An import of consents from an old CMP: conflicts are reported, policy problems skip the row.
 * const importOutcome = (code: CreateConsentCode) => {
 *   switch (code) {
 *     case "CONFLICT": case "SUBJECT_CONFLICT": return "report"
 *     case "STALE_POLICY": case "POLICY_SNAPSHOT_EXPIRED": case "POLICY_SNAPSHOT_INVALID": return "skip"
 *     default: return "retry"
 *   }
 * }
 * ```
 */
export type CreateConsentCode = CodesOf<Subjects["create"]>

/**
 * Whose subjects `subjects.list` returns: a user ID (verified links only).
 *
 * @example
 * ```ts
 * import type { ListSubjectsInput, SvcClient } from "@svc/client"
 *
 * // The support tool looks a customer up by the ID of the shop's own user table.
 * const lookup = (svc: SvcClient, customerId: number) => {
 *   const input: ListSubjectsInput = { externalId: `customer-${customerId}` }
 *   return svc.subjects.list(input)
 * }
 * ```
 */
export interface ListSubjectsInput {
  readonly externalId: string
}
/**
 * `subjects.list`'s data: the user's subjects, each with its consent records.
 *
 * @example
 * ```ts
 * import type { SubjectListData } from "@svc/client"
 *
 * // The most recent consent a user gave from any browser.
 * const lastConsentAt = ({ subjects }: SubjectListData) =>
 *   subjects
 *     .flatMap((subject) => subject.consents)
 *     .map((consent) => consent.givenAt)
 *     .sort((a, b) => b.getTime() - a.getTime())[0]
 * ```
 */
export type SubjectListData = SuccessOf<Subjects["list"]>
/**
 * The codes `subjects.list` can fail with.
 *
 * @example
 * ```ts
 * import type { ListSubjectsCode } from "@svc/client"
 *
 * // The support tool shows a retry button only when retrying can help.
 * const canRetry = (code: ListSubjectsCode) =>
 *   ["NETWORK_ERROR", "TIMEOUT", "RATE_LIMITED", "DATABASE_ERROR"].includes(code)
 * ```
 */
export type ListSubjectsCode = KeyCodesOf<Subjects["list"]>

/**
 * `subjects.export`'s target: one subject id, or every subject verifiably linked to a user ID.
 *
 * @example
 * ```ts
 * import type { SubjectExportTarget, SvcClient } from "@svc/client"
 *
 * // An access request names a user; a request from a visitor without an account names their subject.
 * const targetOf = (request: { userId?: string; subjectId?: string }): SubjectExportTarget | undefined =>
 *   request.userId !== undefined ? { externalId: request.userId } : request.subjectId
 * const exportFor = (svc: SvcClient, target: SubjectExportTarget) => svc.subjects.export(target)
 * ```
 */
export type SubjectExportTarget = string | { readonly externalId: string }
/**
 * `subjects.export`'s options.
 *
 * @example
 * ```ts
 * import { createSvcClient, type SubjectExportInput } from "@svc/client"
 *
 * // An access request answered with proofs the requester can check against the published log key.
 * const svc = createSvcClient({ baseUrl: "https://consent.example.com", apiKey: process.env.SVC_API_KEY! })
 * const options: SubjectExportInput = { proofs: true }
 * const answer = await svc.subjects.export({ externalId: "user-4711" }, options)
 * if (answer.ok) console.log(answer.data.subjects.length)
 * ```
 */
export interface SubjectExportInput {
  /**
   * Each record with `logProof`, its inclusion proof in the transparency log (check it offline
   * with `verifyConsentProof`); `null` for a record in no signed checkpoint yet.
   */
  readonly proofs?: boolean | undefined
}
/**
 * `subjects.export`'s data: `exportedAt` and, per subject, its identity links and every record in
 * the ISO/IEC TS 27560 shape.
 *
 * @example
 * ```ts
 * import type { SubjectExportData } from "@svc/client"
 * import { writeFile } from "node:fs/promises"
 *
 * // The file attached to the answer of an access request.
 * const saveForRequester = (data: SubjectExportData, ticket: string) =>
 *   writeFile(`dsar-${ticket}-${data.exportedAt.toISOString().slice(0, 10)}.json`, JSON.stringify(data, null, 2))
 * ```
 */
export type SubjectExportData = SuccessOf<SvcApiClient["records"]["exportSubject"]>
/**
 * The codes `subjects.export` can fail with.
 *
 * @example
 * ```ts
 * import type { SubjectExportCode } from "@svc/client"
 *
 * // An unknown subject id is an answer too: "we hold no data about you".
 * const answerKind = (code: SubjectExportCode) => (code === "NOT_FOUND" ? "no-data-held" : "escalate")
 * ```
 */
export type SubjectExportCode = KeyCodesOf<SvcApiClient["records"]["exportSubject"]>

/**
 * `subjects.erase`'s data: when, how many subjects lost their personal data, and how many records
 * were kept as anonymous proof (zero counts when nothing matched).
 *
 * @example
 * ```ts
 * import type { ErasureData } from "@svc/client"
 *
 * // The confirmation of an erasure request, for the requester and the DPO's register.
 * const confirmation = (erasure: ErasureData) =>
 *   erasure.subjects === 0
 *     ? "We held no consent data about you."
 *     : `Erased on ${erasure.erasedAt.toISOString().slice(0, 10)}; ` +
 *       `${erasure.recordsKeptAsAnonymousProof} consent record(s) kept without personal data.`
 * ```
 */
export type ErasureData = SuccessOf<SvcApiClient["records"]["eraseSubject"]>
/**
 * The codes `subjects.erase` can fail with.
 *
 * @example
 * ```ts
 * import type { ErasureCode } from "@svc/client"
 *
 * // An erasure must happen: every failure goes to a queue that retries until it does, except bad input.
 * const queueForRetry = (code: ErasureCode) => code !== "INVALID_INPUT" && code !== "MISSING_API_KEY"
 * ```
 */
export type ErasureCode = KeyCodesOf<SvcApiClient["records"]["eraseSubject"]>

export interface PublicSubjectMethods {
  /** `PATCH /subjects/:id`: link the subject to a user ID; verified when the client has an API key. */
  readonly identify: (
    id: string,
    input: IdentifyInput,
    options?: SvcCallOptions
  ) => Promise<SvcResult<IdentifyData, IdentifyCode>>
  /** `GET /subjects/:id`: consents, validity and merged choices of one subject. */
  readonly get: (
    id: string,
    input?: GetSubjectInput,
    options?: SvcCallOptions
  ) => Promise<SvcResult<SubjectData, GetSubjectCode>>
  /** `POST /subjects`: record a consent; repeating the same consent returns the existing record. */
  readonly create: (
    input: SaveConsentInput,
    options?: SvcCallOptions
  ) => Promise<SvcResult<CreateConsentData, CreateConsentCode>>
}

export interface SubjectMethods extends PublicSubjectMethods {
  /** `GET /subjects?externalId=` (API key): subjects verifiably linked to a user ID. */
  readonly list: (
    input: ListSubjectsInput,
    options?: SvcCallOptions
  ) => Promise<SvcResult<SubjectListData, ListSubjectsCode>>
  /**
   * `GET /subjects/:id/export` or `GET /subjects/export?externalId=` (API key): everything svc holds
   * about the subject (or the user's subjects) as ISO/IEC TS 27560-style records, plus identity links.
   * `{ proofs: true }` adds each record's transparency-log proof.
   */
  readonly export: (
    target: SubjectExportTarget,
    input?: SubjectExportInput,
    options?: SvcCallOptions
  ) => Promise<SvcResult<SubjectExportData, SubjectExportCode>>
  /**
   * `DELETE /subjects/:id` or `DELETE /subjects?externalId=` (API key): personal data removed, the
   * records kept as anonymous proof. Idempotent: nothing to erase answers zero counts.
   */
  readonly erase: (
    target: SubjectExportTarget,
    options?: SvcCallOptions
  ) => Promise<SvcResult<ErasureData, ErasureCode>>
}

const endpoints = {
  identify: endpointOf("subjects", "identify"),
  get: endpointOf("subjects", "get"),
  list: endpointOf("subjects", "list"),
  exportSubject: endpointOf("records", "exportSubject"),
  exportByExternalId: endpointOf("records", "exportByExternalId"),
  eraseSubject: endpointOf("records", "eraseSubject"),
  eraseByExternalId: endpointOf("records", "eraseByExternalId")
}

const subjectPath = (id: unknown, schema: typeof endpoints.get.pathSchema) =>
  typeof id === "string" ? checkPart(schema, { id }) : [{ path: ["id"], message: "must be a string" }]

export const subjectMethods = (runtime: Runtime): SubjectMethods => ({
  identify: (id, input, options) =>
    callMethod<IdentifyData, IdentifyCode>(runtime, { name: "subjects.identify", needsKey: false }, options, () => {
      const shape = objectIssue(input, [], "externalId")
      const pathIssues = subjectPath(id, endpoints.identify.pathSchema)
      if (shape.length > 0) return [...pathIssues, ...shape]
      const payload = defined({
        externalId: input.externalId,
        identityProvider: input.identityProvider,
        identityToken: input.identityToken
      })
      const issues = [...pathIssues, ...checkJsonSafe(input), ...checkPart(endpoints.identify.payloadSchema, payload)]
      if (issues.length > 0) return issues
      return bodyOperation("verify", callOf("subjects", "identify", { path: { id }, payload }))
    }),

  get: (id, input, options) =>
    callMethod<SubjectData, GetSubjectCode>(runtime, { name: "subjects.get", needsKey: false }, options, () => {
      const issues = subjectPath(id, endpoints.get.pathSchema)
      if (input !== undefined) issues.push(...objectIssue(input, [], "optional types"))
      const types = input?.types
      if (types !== undefined) issues.push(...checkTypeList(types, ["types"]))
      if (issues.length > 0) return issues
      const urlParams = types === undefined ? {} : { type: types.join(",") }
      return bodyOperation("none", callOf("subjects", "get", { path: { id }, urlParams }))
    }),

  create: (input, options) =>
    callMethod<CreateConsentData, CreateConsentCode>(
      runtime,
      { name: "subjects.create", needsKey: false },
      options,
      () => {
        const prepared = prepareCreate(input)
        if (Array.isArray(prepared)) return prepared
        const payload = prepared
        return bodyOperation("verify", callOf("subjects", "create", { payload }))
      }
    ),

  list: (input, options) =>
    callMethod<SubjectListData, ListSubjectsCode>(runtime, { name: "subjects.list", needsKey: true }, options, () => {
      const shape = objectIssue(input, [], "externalId")
      if (shape.length > 0) return shape
      const urlParams = { externalId: input.externalId }
      const issues = checkPart(endpoints.list.urlParamsSchema, urlParams)
      if (issues.length > 0) return issues
      return bodyOperation("required", callOf("subjects", "list", { urlParams }))
    }),

  export: (target, input, options) =>
    callMethod<SubjectExportData, SubjectExportCode>(
      runtime,
      { name: "subjects.export", needsKey: true },
      options,
      () => {
        const inputShape = input === undefined ? [] : objectIssue(input, [], "optional proofs")
        if (inputShape.length > 0) return inputShape
        const proofs = input?.proofs === undefined ? {} : { proofs: input.proofs }
        if (typeof target === "string") {
          const urlParams = proofs
          const issues = [
            ...subjectPath(target, endpoints.exportSubject.pathSchema),
            ...checkPart(endpoints.exportSubject.urlParamsSchema, urlParams)
          ]
          if (issues.length > 0) return issues
          return bodyOperation("required", callOf("records", "exportSubject", { path: { id: target }, urlParams }))
        }
        const shape = objectIssue(target, [], "a subject id or { externalId }")
        if (shape.length > 0) return shape
        const urlParams = { externalId: target.externalId, ...proofs }
        const issues = checkPart(endpoints.exportByExternalId.urlParamsSchema, urlParams)
        if (issues.length > 0) return issues
        return bodyOperation("required", callOf("records", "exportByExternalId", { urlParams }))
      }
    ),

  erase: (target, options) =>
    callMethod<ErasureData, ErasureCode>(runtime, { name: "subjects.erase", needsKey: true }, options, () => {
      if (typeof target === "string") {
        const issues = subjectPath(target, endpoints.eraseSubject.pathSchema)
        if (issues.length > 0) return issues
        return bodyOperation("required", callOf("records", "eraseSubject", { path: { id: target } }))
      }
      const shape = objectIssue(target, [], "a subject id or { externalId }")
      if (shape.length > 0) return shape
      const urlParams = { externalId: target.externalId }
      const issues = checkPart(endpoints.eraseByExternalId.urlParamsSchema, urlParams)
      if (issues.length > 0) return issues
      return bodyOperation("required", callOf("records", "eraseByExternalId", { urlParams }))
    })
})
