import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ConsentCheck, ExternalId, SafeString } from "@svc/schema"
import { Schema } from "effect"
import { ApiKeyAuth } from "../security.js"

/** Consent checks (API key): whether a subject has consented, for a backend deciding what it may do. */
export class ConsentsGroup extends HttpApiGroup.make("consents")
  .add(
    HttpApiEndpoint.get("check", "/consents/check")
      .setUrlParams(Schema.Struct({ externalId: ExternalId, type: SafeString.pipe(Schema.minLength(1)) }))
      .addSuccess(ConsentCheck)
      .annotate(OpenApi.Summary, "hasConsent and isLatestPolicy per requested type, from verified links only")
  )
  .middleware(ApiKeyAuth) {}
