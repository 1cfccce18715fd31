import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import {
  InitResponse,
  LanguageCode,
  Manifest,
  noSurroundingWhiteSpace,
  SafeString,
  SessionReportInput
} from "@svc/schema"
import { Schema } from "effect"
import { InitLimit, ManifestLimit, PublicWriteLimit } from "../security.js"

const optionalString = Schema.optional(Schema.String)
/** A query input: never a control character (a NUL would otherwise be echoed or reach a database). */
const queryString = Schema.optional(SafeString)
/** Journey parts are echoed and then saved with the consent: no surrounding white space either. */
const journeyPart = Schema.optional(noSurroundingWhiteSpace(SafeString))

/**
 * `/init` inputs: every one travels in the query so a cross-origin browser call needs no preflight.
 *
 * @example
 * ```ts
 * import { InitQuery } from "@svc/api"
 * import { Schema } from "effect"
 *
 * // An edge function passes the page's own overrides on to svc's /init, and nothing else.
 * const page = new URL("https://shop.example.com/checkout?country=DE&gpc=1&journey=checkout&utm_source=mail")
 * const inputs = Schema.decodeUnknownSync(InitQuery)(Object.fromEntries(page.searchParams))
 * const initUrl = new URL("https://consent.example.com/init")
 * for (const [name, value] of Object.entries(inputs)) if (value !== undefined) initUrl.searchParams.set(name, value)
 * // https://consent.example.com/init?country=DE&gpc=1&journey=checkout
 * ```
 */
export const InitQuery = Schema.Struct({
  v: queryString,
  contract: queryString,
  country: queryString,
  region: queryString,
  gpc: queryString,
  experiment: queryString,
  journey: journeyPart,
  journeyScope: journeyPart,
  stored: journeyPart,
  svcJourney: journeyPart,
  svcJourneyScope: journeyPart,
  svcStored: journeyPart
})

/**
 * The same inputs as headers; the query wins. Header keys are lower case (framework rule).
 *
 * @example
 * ```ts
 * import { InitHeaders } from "@svc/api"
 * import { Schema } from "effect"
 * import type { IncomingHttpHeaders } from "node:http"
 *
 * // A server-rendered page forwards the visitor's language and privacy signals to /init, not their cookies.
 * const initHeadersOf = (visitor: IncomingHttpHeaders) => {
 *   const picked = Schema.decodeUnknownSync(InitHeaders)(visitor)
 *   const present = Object.entries(picked).filter((entry): entry is [string, string] => entry[1] !== undefined)
 *   return Object.fromEntries(present)
 * }
 * const headers = initHeadersOf({ "accept-language": "de-DE", "sec-gpc": "1", cookie: "session=abc" })
 * ```
 */
export const InitHeaders = Schema.Struct({
  "x-svc-version": optionalString,
  "x-svc-policy-contract": optionalString,
  "x-svc-country": optionalString,
  "x-svc-region": optionalString,
  "x-svc-gpc": optionalString,
  "x-svc-experiment": optionalString,
  "x-svc-vendors": optionalString,
  "accept-language": optionalString,
  "sec-gpc": optionalString
})

/**
 * The visitor-facing policy routes: the geo-independent `GET /manifest`, `GET /init` resolved for one
 * visitor, and `POST /sessions` for a host that resolves from a cached manifest.
 *
 * @example
 * ```ts
 * import { HttpApi, HttpApiClient } from "@effect/platform"
 * import { PolicyGroup } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // A host keeps the manifest and asks again with its ETag; an unchanged manifest answers 304 (void).
 * class Policy extends HttpApi.make("policy").add(PolicyGroup) {}
 * const refreshManifest = (etag: string | undefined) =>
 *   Effect.gen(function*() {
 *     const svc = yield* HttpApiClient.make(Policy, { baseUrl: "https://consent.example.com" })
 *     const manifest = yield* svc.policy.manifest({
 *       urlParams: { language: "de" },
 *       headers: { "if-none-match": etag }
 *     })
 *     return manifest ?? "not-modified"
 *   })
 * ```
 */
export class PolicyGroup extends HttpApiGroup.make("policy")
  .add(
    HttpApiEndpoint.get("manifest", "/manifest")
      .setUrlParams(Schema.Struct({ language: Schema.optional(LanguageCode) }))
      .setHeaders(Schema.Struct({ "if-none-match": optionalString }))
      .addSuccess(Manifest)
      .addSuccess(HttpApiSchema.Empty(304))
      .middleware(ManifestLimit)
      .annotate(OpenApi.Summary, "Geo-independent policy manifest")
      .annotate(
        OpenApi.Description,
        "Policy configuration and revision with an ETag; a matching If-None-Match answers 304. `?language=` slices translations."
      )
  )
  .add(
    HttpApiEndpoint.get("init", "/init")
      .setUrlParams(InitQuery)
      .setHeaders(InitHeaders)
      .addSuccess(InitResponse)
      .middleware(InitLimit)
      .annotate(OpenApi.Summary, "Resolve the policy for this visitor's location, language and privacy signals")
  )
  .add(
    HttpApiEndpoint.post("reportSession", "/sessions")
      .setHeaders(Schema.Struct({
        "x-svc-version": Schema.String,
        /** The visitor's address, as the host saw it (stored per `ipAddress`: masked by default). */
        "x-svc-client-ip": optionalString,
        origin: optionalString
      }))
      .setPayload(SessionReportInput)
      .addSuccess(HttpApiSchema.NoContent)
      .middleware(PublicWriteLimit)
      .annotate(OpenApi.Summary, "Report a resolution made by a host from a cached manifest (server to server)")
  ) {}
