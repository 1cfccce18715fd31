import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Liveness, Readiness } from "@svc/schema"
import { NotReadyWire } from "../errors.js"

/**
 * Probes for orchestrators and load balancers: public, never cached, not logged at the default level.
 *
 * @example
 * ```ts
 * import { HttpApi, HttpApiBuilder } from "@effect/platform"
 * import { HealthGroup, NotReady } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // A stand-in for svc in a deploy pipeline's tests: the process is up, its database never is.
 * class Probes extends HttpApi.make("probes").add(HealthGroup) {}
 * const NeverReady = HttpApiBuilder.group(Probes, "health", (handlers) =>
 *   handlers
 *     .handle("live", () => Effect.succeed({ status: "live" as const }))
 *     .handle("ready", () => Effect.fail(new NotReady({ message: "The database does not answer" })))
 * )
 * ```
 */
export class HealthGroup extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("live", "/health/live")
      .addSuccess(Liveness)
      .annotate(OpenApi.Summary, "Liveness: the process answers")
      .annotate(OpenApi.Description, "Answers 200 as long as the process serves HTTP; it touches nothing else.")
  )
  .add(
    HttpApiEndpoint.get("ready", "/health/ready")
      .addSuccess(Readiness)
      .addError(NotReadyWire)
      .annotate(OpenApi.Summary, "Readiness: the instance can serve consent")
      .annotate(
        OpenApi.Description,
        "200 when the database answers within 1 s and its schema is current; 503 NOT_READY with the reason otherwise, and while the server drains on shutdown."
      )
  ) {}
