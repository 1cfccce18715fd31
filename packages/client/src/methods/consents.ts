import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcResult } from "../result.js"
import type { Runtime } from "../runner.js"
import { checkPart, checkTypeList, endpointOf, objectIssue } from "../validate.js"
import { callMethod, type KeyCodesOf } from "./define.js"
import { callOf } from "../transport.js"

export interface ConsentCheckInput<T extends string = string> {
  /** The external user ID; only verified links count. */
  readonly externalId: string
  /** Policy types to check, each one entry (no commas); at least one. */
  readonly types: ReadonlyArray<T>
}

export interface ConsentCheckResult {
  readonly hasConsent: boolean
  readonly isLatestPolicy: boolean
}

export interface ConsentCheckData<T extends string = string> {
  /** One key per requested type. */
  readonly results: { readonly [K in T]: ConsentCheckResult }
}

export type ConsentCheckCode = KeyCodesOf<SvcApiClient["consents"]["check"]>

/** `GET /consents/check` (API key). A failed check must be treated as no consent. */
export type ConsentCheckMethod = <const T extends string>(
  input: ConsentCheckInput<T>,
  options?: SvcCallOptions
) => Promise<SvcResult<ConsentCheckData<T>, ConsentCheckCode>>

const check = endpointOf("consents", "check")

export const consentMethods = (runtime: Runtime): { readonly check: ConsentCheckMethod } => ({
  check: <const T extends string>(input: ConsentCheckInput<T>, options?: SvcCallOptions) =>
    callMethod<ConsentCheckData<T>, ConsentCheckCode>(
      runtime,
      { name: "consents.check", needsKey: true },
      options,
      () => {
        const shape = objectIssue(input, [], "externalId and types")
        if (shape.length > 0) return shape
        const typeIssues = checkTypeList(input.types, ["types"])
        const types = typeIssues.length === 0 ? input.types : []
        const urlParams = { externalId: input.externalId, type: types.join(",") }
        const issues = [
          ...checkPart(check.urlParamsSchema, urlParams).filter((issue) => issue.path[0] !== "type"),
          ...typeIssues
        ]
        if (issues.length > 0) return issues
        return {
          auth: "required",
          call: callOf("consents", "check", { urlParams }),
          toData: (value) => {
            const { results } = value as { readonly results: Readonly<Record<string, ConsentCheckResult>> }
            const missing = types.find((type) => !Object.hasOwn(results, type))
            // Every requested type has its entry (checked just above), so the record is keyed by T.
            return missing === undefined
              ? { data: { results: results as ConsentCheckData<T>["results"] } }
              : `results: no entry for requested type ${missing}`
          }
        }
      }
    )
})
