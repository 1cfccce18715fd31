import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcResult } from "../result.js"
import type { Runtime } from "../runner.js"
import { checkJsonSafe, checkPart, checkTypeList, defined, endpointOf, objectIssue } from "../validate.js"
import { type CodesOf, callMethod, type KeyCodesOf, type SuccessOf } from "./define.js"
import { callOf } from "../transport.js"
import { prepareCreate, type SaveConsentInput } from "./subjects-create.js"

type Subjects = SvcApiClient["subjects"]

export interface IdentifyInput {
  readonly externalId: string
  /** Stored as `external` when omitted; an identity token naming an `idp` must match it. */
  readonly identityProvider?: string | undefined
  /** Verifies the link without an API key (see `createIdentityToken`). */
  readonly identityToken?: string | undefined
}
export type IdentifyData = SuccessOf<Subjects["identify"]>
export type IdentifyCode = CodesOf<Subjects["identify"]>

export interface GetSubjectInput {
  /** Restricts the consent records returned and `isValid`; `subjectChoice` is not filtered. */
  readonly types?: ReadonlyArray<string> | undefined
}
export type SubjectData = SuccessOf<Subjects["get"]>
export type GetSubjectCode = CodesOf<Subjects["get"]>

export type CreateConsentData = SuccessOf<Subjects["create"]>
export type CreateConsentCode = CodesOf<Subjects["create"]>

export interface ListSubjectsInput {
  readonly externalId: string
}
export type SubjectListData = SuccessOf<Subjects["list"]>
export type ListSubjectsCode = KeyCodesOf<Subjects["list"]>

/** `subjects.export`'s target: one subject id, or every subject verifiably linked to a user ID. */
export type SubjectExportTarget = string | { readonly externalId: string }
export interface SubjectExportInput {
  /**
   * Each record with `logProof`, its inclusion proof in the transparency log (check it offline
   * with `verifyConsentProof`); `null` for a record in no signed checkpoint yet.
   */
  readonly proofs?: boolean | undefined
}
export type SubjectExportData = SuccessOf<SvcApiClient["records"]["exportSubject"]>
export type SubjectExportCode = KeyCodesOf<SvcApiClient["records"]["exportSubject"]>

export type ErasureData = SuccessOf<SvcApiClient["records"]["eraseSubject"]>
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
      return {
        auth: "verify",
        call: callOf("subjects", "identify", { path: { id }, payload }),
        toData: (value) => ({ data: value as IdentifyData })
      }
    }),

  get: (id, input, options) =>
    callMethod<SubjectData, GetSubjectCode>(runtime, { name: "subjects.get", needsKey: false }, options, () => {
      const issues = subjectPath(id, endpoints.get.pathSchema)
      if (input !== undefined) issues.push(...objectIssue(input, [], "optional types"))
      const types = input?.types
      if (types !== undefined) issues.push(...checkTypeList(types, ["types"]))
      if (issues.length > 0) return issues
      const urlParams = types === undefined ? {} : { type: types.join(",") }
      return {
        auth: "none",
        call: callOf("subjects", "get", { path: { id }, urlParams }),
        toData: (value) => ({ data: value as SubjectData })
      }
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
        return {
          auth: "verify",
          call: callOf("subjects", "create", { payload }),
          toData: (value) => ({ data: value as CreateConsentData })
        }
      }
    ),

  list: (input, options) =>
    callMethod<SubjectListData, ListSubjectsCode>(runtime, { name: "subjects.list", needsKey: true }, options, () => {
      const shape = objectIssue(input, [], "externalId")
      if (shape.length > 0) return shape
      const urlParams = { externalId: input.externalId }
      const issues = checkPart(endpoints.list.urlParamsSchema, urlParams)
      if (issues.length > 0) return issues
      return {
        auth: "required",
        call: callOf("subjects", "list", { urlParams }),
        toData: (value) => ({ data: value as SubjectListData })
      }
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
          return {
            auth: "required",
            call: callOf("records", "exportSubject", { path: { id: target }, urlParams }),
            toData: (value) => ({ data: value as SubjectExportData })
          }
        }
        const shape = objectIssue(target, [], "a subject id or { externalId }")
        if (shape.length > 0) return shape
        const urlParams = { externalId: target.externalId, ...proofs }
        const issues = checkPart(endpoints.exportByExternalId.urlParamsSchema, urlParams)
        if (issues.length > 0) return issues
        return {
          auth: "required",
          call: callOf("records", "exportByExternalId", { urlParams }),
          toData: (value) => ({ data: value as SubjectExportData })
        }
      }
    ),

  erase: (target, options) =>
    callMethod<ErasureData, ErasureCode>(runtime, { name: "subjects.erase", needsKey: true }, options, () => {
      if (typeof target === "string") {
        const issues = subjectPath(target, endpoints.eraseSubject.pathSchema)
        if (issues.length > 0) return issues
        return {
          auth: "required",
          call: callOf("records", "eraseSubject", { path: { id: target } }),
          toData: (value) => ({ data: value as ErasureData })
        }
      }
      const shape = objectIssue(target, [], "a subject id or { externalId }")
      if (shape.length > 0) return shape
      const urlParams = { externalId: target.externalId }
      const issues = checkPart(endpoints.eraseByExternalId.urlParamsSchema, urlParams)
      if (issues.length > 0) return issues
      return {
        auth: "required",
        call: callOf("records", "eraseByExternalId", { urlParams }),
        toData: (value) => ({ data: value as ErasureData })
      }
    })
})
