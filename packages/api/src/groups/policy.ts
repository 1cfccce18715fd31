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

/** `/init` inputs: every one travels in the query so a cross-origin browser call needs no preflight. */
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

/** The same inputs as headers; the query wins. Header keys are lower case (framework rule). */
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
