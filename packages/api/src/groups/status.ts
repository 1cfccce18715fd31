import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Status } from "@svc/schema"

export class StatusGroup extends HttpApiGroup.make("status")
  .add(
    HttpApiEndpoint.get("status", "/status")
      .addSuccess(Status)
      .annotate(OpenApi.Summary, "Service status and configured version")
  ) {}
