import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Domain, ExperimentSummary, SafeString, Token } from "@svc/schema"
import { Schema } from "effect"
import { ApiKeyAuth } from "../security.js"

/**
 * Banner experiments (API key): how visitors chose in each arm.
 *
 * @example
 * ```ts
 * import { HttpApi, OpenApi } from "@effect/platform"
 * import { ExperimentsGroup } from "@svc/api"
 *
 * // The analytics team gets an OpenAPI document of just the experiment route for their notebook client.
 * class ExperimentsApi extends HttpApi.make("svc-experiments").add(ExperimentsGroup) {}
 * const spec = OpenApi.fromApi(ExperimentsApi)
 * const route = spec.paths["/experiments/{id}/summary"] // GET, with the ExperimentSummary schema
 * ```
 */
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
