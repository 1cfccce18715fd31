import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  ConsentCheck,
  Domain,
  ExperimentSummary,
  ExternalId,
  SafeString,
  Token
} from "@svc/schema"
import { Schema } from "effect"
import { ApiKeyAuth } from "../security.js"

export class ConsentsGroup extends HttpApiGroup.make("consents")
  .add(
    HttpApiEndpoint.get("check", "/consents/check")
      .setUrlParams(Schema.Struct({ externalId: ExternalId, type: SafeString.pipe(Schema.minLength(1)) }))
      .addSuccess(ConsentCheck)
      .annotate(OpenApi.Summary, "hasConsent and isLatestPolicy per requested type, from verified links only")
  )
  .middleware(ApiKeyAuth) {}

export class ExperimentsGroup extends HttpApiGroup.make("experiments")
  .add(
    HttpApiEndpoint.get("summary", "/experiments/:id/summary")
      .setPath(Schema.Struct({ id: Token(128) }))
      .setUrlParams(
        Schema.Struct({
          from: Schema.optional(SafeString),
          to: Schema.optional(SafeString),
          domain: Schema.optional(Domain)
        })
      )
      .addSuccess(ExperimentSummary)
      .annotate(OpenApi.Summary, "Choices per arm of a banner experiment")
  )
  .middleware(ApiKeyAuth) {}
