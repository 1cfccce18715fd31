import type { SvcCallOptions } from "../call-options.js"
import type { SvcApiClient } from "../effect-client.js"
import type { SvcResult } from "../result.js"
import { operation, type Runtime } from "../runner.js"
import { checkPart, checkTypeList, endpointOf, objectIssue } from "../validate.js"
import { callMethod, type KeyCodesOf } from "./define.js"
import { callOf } from "../transport.js"

/**
 * What `consents.check` asks about: a user ID and the policy types to check for it.
 *
 * @example
 * ```ts
 * import type { ConsentCheckInput, SvcClient } from "@svc/client"
 *
 * // Before a checkout: the terms and the privacy policy, both in their latest version.
 * const checkoutConsents = (userId: string) =>
 *   ({ externalId: userId, types: ["terms_and_conditions", "privacy_policy"] }) satisfies ConsentCheckInput
 * const mayCheckOut = async (svc: SvcClient, userId: string) => {
 *   const result = await svc.consents.check(checkoutConsents(userId))
 *   return result.ok && Object.values(result.data.results).every((r) => r.hasConsent && r.isLatestPolicy)
 * }
 * ```
 */
export interface ConsentCheckInput<T extends string = string> {
  /** The external user ID; only verified links count. */
  readonly externalId: string
  /** Policy types to check, each one entry (no commas); at least one. */
  readonly types: ReadonlyArray<T>
}

/**
 * The answer for one policy type: whether the user consented, and whether to its latest version.
 *
 * @example
 * ```ts
 * import type { ConsentCheckResult } from "@svc/client"
 *
 * // An old version of the terms still counts for reading, but the user must accept the new one first.
 * const termsState = (terms: ConsentCheckResult) =>
 *   !terms.hasConsent ? "ask" : terms.isLatestPolicy ? "ok" : "ask to accept the new version"
 * ```
 */
export interface ConsentCheckResult {
  readonly hasConsent: boolean
  readonly isLatestPolicy: boolean
}

/**
 * `consents.check`'s data: one result per requested type, keyed by the types asked for.
 *
 * @example
 * ```ts
 * import type { ConsentCheckData } from "@svc/client"
 *
 * // The types asked for are the keys, so no entry needs a null check.
 * const newsletterAllowed = (data: ConsentCheckData<"terms_and_conditions_newsletter">) =>
 *   data.results.terms_and_conditions_newsletter.hasConsent
 * ```
 */
export interface ConsentCheckData<T extends string = string> {
  /** One key per requested type. */
  readonly results: { readonly [K in T]: ConsentCheckResult }
}

/**
 * The codes `consents.check` can fail with. A failed check must be treated as no consent.
 *
 * @example
 * ```ts
 * import type { ConsentCheckCode } from "@svc/client"
 *
 * // Every failure means "no consent"; only a key problem also pages the on-call engineer.
 * const onCheckFailed = (code: ConsentCheckCode) => {
 *   const page = code === "UNAUTHORIZED" || code === "MISSING_API_KEY"
 *   return { allowed: false, page }
 * }
 * ```
 */
export type ConsentCheckCode = KeyCodesOf<SvcApiClient["consents"]["check"]>

/**
 * `GET /consents/check` (API key). A failed check must be treated as no consent.
 *
 * @example
 * ```ts
 * import type { ConsentCheckMethod } from "@svc/client"
 *
 * // A mailer depends on the check alone, so its tests pass a stub instead of a whole client.
 * export const makeMailer = (check: ConsentCheckMethod) => async (userId: string) => {
 *   const result = await check({ externalId: userId, types: ["terms_and_conditions_newsletter"] })
 *   return result.ok && result.data.results.terms_and_conditions_newsletter.hasConsent
 * }
 * ```
 */
export type ConsentCheckMethod = <const T extends string>(
  input: ConsentCheckInput<T>,
  options?: SvcCallOptions
) => Promise<SvcResult<ConsentCheckData<T>, ConsentCheckCode>>

const check = endpointOf("consents", "check")

/** Whether the answer has an entry for every requested type: then it is keyed by them. */
const hasEntryFor = <T extends string, R>(
  results: Readonly<Record<string, R>>,
  types: ReadonlyArray<T>
): results is Readonly<Record<string, R>> & { readonly [K in T]: R } =>
  types.every((type) => Object.hasOwn(results, type))

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
        return operation(
          "required",
          callOf("consents", "check", { urlParams }),
          ({ results }) =>
            hasEntryFor(results, types)
              ? { data: { results } }
              : `results: no entry for requested type ${types.find((type) => !Object.hasOwn(results, type))}`
        )
      }
    )
})
