import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Liveness, Readiness } from "@svc/schema"
import { NotReadyWire } from "../errors.js"

/** Probes for orchestrators and load balancers: public, never cached, not logged at the default level. */
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
