import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ConsentCheck, ExternalId, SafeString } from "@svc/schema"
import { Schema } from "effect"
import { ApiKeyAuth } from "../security.js"

/**
 * `type`: the policy types to check, comma-separated. A caller that forgets it has often sent
 * `types` (the list's name in @svc/client): the refusal says which query svc reads.
 */
const CheckTypes = Schema.propertySignature(
  SafeString.pipe(Schema.minLength(1)).annotations({
    description: "Policy types to check, comma-separated: cookie_banner,privacy_policy"
  })
).annotations({
  missingMessage: () =>
    "is missing: the policy types to check, comma-separated (type=cookie_banner,privacy_policy); the query is type, not types"
})

/**
 * Consent checks (API key): whether a subject has consented, for a backend deciding what it may do.
 *
 * @example
 * ```ts
 * import { FetchHttpClient, HttpApi, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
 * import { ConsentsGroup } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // A mail service that only checks consent derives a client of this one group.
 * class ConsentChecks extends HttpApi.make("consent-checks").add(ConsentsGroup) {}
 * const mayMail = (userId: string, apiKey: string) =>
 *   Effect.gen(function*() {
 *     const svc = yield* HttpApiClient.make(ConsentChecks, {
 *       baseUrl: "https://consent.example.com",
 *       transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(apiKey))
 *     })
 *     const { results } = yield* svc.consents.check({
 *       urlParams: { externalId: userId, type: "terms_and_conditions_newsletter" }
 *     })
 *     return results["terms_and_conditions_newsletter"]?.hasConsent === true
 *   }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 */
export class ConsentsGroup extends HttpApiGroup.make("consents")
  .add(
    HttpApiEndpoint.get("check", "/consents/check")
      .setUrlParams(Schema.Struct({ externalId: ExternalId, type: CheckTypes }))
      .addSuccess(ConsentCheck)
      .annotate(OpenApi.Summary, "hasConsent and isLatestPolicy per requested type, from verified links only")
  )
  .middleware(ApiKeyAuth) {}
