import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcResult } from "../result.js"
import type { Runtime } from "../runner.js"
import { checkJsonSafe, checkPart, checkTypeList, defined, endpointOf, objectIssue } from "../validate.js"
import { type CodesOf, defineMethod, type KeyCodesOf, type SuccessOf } from "./define.js"
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
   */
  readonly export: (
    target: SubjectExportTarget,
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
  identify: defineMethod<[string, IdentifyInput], IdentifyData, IdentifyCode>(runtime, 2, {
    name: "subjects.identify",
    needsKey: false,
    prepare: (id, input) => {
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
        method: "PATCH",
        route: "/subjects/:id",
        auth: "verify",
        send: (api) => api.subjects.identify({ path: { id: id as never }, payload: payload as never, withResponse: true }),
        toData: (value) => ({ data: value as IdentifyData })
      }
    }
  }),

  get: defineMethod<[string, GetSubjectInput | undefined], SubjectData, GetSubjectCode>(runtime, 2, {
    name: "subjects.get",
    needsKey: false,
    prepare: (id, input) => {
      const issues = subjectPath(id, endpoints.get.pathSchema)
      if (input !== undefined) issues.push(...objectIssue(input, [], "optional types"))
      const types = input?.types
      if (types !== undefined) issues.push(...checkTypeList(types, ["types"]))
      if (issues.length > 0) return issues
      const urlParams = types === undefined ? {} : { type: types.join(",") }
      return {
        method: "GET",
        route: "/subjects/:id",
        auth: "none",
        send: (api) => api.subjects.get({ path: { id: id as never }, urlParams, withResponse: true }),
        toData: (value) => ({ data: value as SubjectData })
      }
    }
  }),

  create: defineMethod<[SaveConsentInput], CreateConsentData, CreateConsentCode>(runtime, 1, {
    name: "subjects.create",
    needsKey: false,
    prepare: (input) => {
      const prepared = prepareCreate(input)
      if (Array.isArray(prepared)) return prepared
      const payload = prepared
      return {
        method: "POST",
        route: "/subjects",
        auth: "verify",
        send: (api) => api.subjects.create({ payload: payload as never, withResponse: true }),
        toData: (value) => ({ data: value as CreateConsentData })
      }
    }
  }),

  list: defineMethod<[ListSubjectsInput], SubjectListData, ListSubjectsCode>(runtime, 1, {
    name: "subjects.list",
    needsKey: true,
    prepare: (input) => {
      const shape = objectIssue(input, [], "externalId")
      if (shape.length > 0) return shape
      const urlParams = { externalId: input.externalId }
      const issues = checkPart(endpoints.list.urlParamsSchema, urlParams)
      if (issues.length > 0) return issues
      return {
        method: "GET",
        route: "/subjects",
        auth: "required",
        send: (api) => api.subjects.list({ urlParams, withResponse: true }),
        toData: (value) => ({ data: value as SubjectListData })
      }
    }
  }),

  export: defineMethod<[SubjectExportTarget], SubjectExportData, SubjectExportCode>(runtime, 1, {
    name: "subjects.export",
    needsKey: true,
    prepare: (target) => {
      if (typeof target === "string") {
        const issues = subjectPath(target, endpoints.exportSubject.pathSchema)
        if (issues.length > 0) return issues
        return {
          method: "GET",
          route: "/subjects/:id/export",
          auth: "required",
          send: (api) => api.records.exportSubject({ path: { id: target as never }, withResponse: true }),
          toData: (value) => ({ data: value as SubjectExportData })
        }
      }
      const shape = objectIssue(target, [], "a subject id or { externalId }")
      if (shape.length > 0) return shape
      const urlParams = { externalId: target.externalId }
      const issues = checkPart(endpoints.exportByExternalId.urlParamsSchema, urlParams)
      if (issues.length > 0) return issues
      return {
        method: "GET",
        route: "/subjects/export",
        auth: "required",
        send: (api) => api.records.exportByExternalId({ urlParams, withResponse: true }),
        toData: (value) => ({ data: value as SubjectExportData })
      }
    }
  }),

  erase: defineMethod<[SubjectExportTarget], ErasureData, ErasureCode>(runtime, 1, {
    name: "subjects.erase",
    needsKey: true,
    prepare: (target) => {
      if (typeof target === "string") {
        const issues = subjectPath(target, endpoints.eraseSubject.pathSchema)
        if (issues.length > 0) return issues
        return {
          method: "DELETE",
          route: "/subjects/:id",
          auth: "required",
          send: (api) => api.records.eraseSubject({ path: { id: target as never }, withResponse: true }),
          toData: (value) => ({ data: value as ErasureData })
        }
      }
      const shape = objectIssue(target, [], "a subject id or { externalId }")
      if (shape.length > 0) return shape
      const urlParams = { externalId: target.externalId }
      const issues = checkPart(endpoints.eraseByExternalId.urlParamsSchema, urlParams)
      if (issues.length > 0) return issues
      return {
        method: "DELETE",
        route: "/subjects",
        auth: "required",
        send: (api) => api.records.eraseByExternalId({ urlParams, withResponse: true }),
        toData: (value) => ({ data: value as ErasureData })
      }
    }
  })
})
