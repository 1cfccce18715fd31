import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { EventDelivery, EventDeliveryList, SafeText } from "@svc/schema"
import { Schema } from "effect"
import { NotFoundWire } from "../errors.js"
import { ApiKeyAuth } from "../security.js"

/** Consent event deliveries (API key): what is waiting or has failed, and a manual retry. */
export class EventsGroup extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("listDeliveries", "/events/deliveries")
      .setUrlParams(Schema.Struct({
        status: Schema.optional(Schema.Literal("pending", "failed", "delivered")),
        /** A webhook id, `nats`, or a custom sink's id. */
        endpoint: Schema.optional(SafeText(128)),
        limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 500)))
      }))
      .addSuccess(EventDeliveryList)
      .annotate(OpenApi.Summary, "Event deliveries, newest event first (default 100): filter by status and endpoint")
  )
  .add(
    HttpApiEndpoint.post("retryDelivery", "/events/deliveries/:id/retry")
      .setPath(Schema.Struct({ id: SafeText(64) }))
      .addSuccess(EventDelivery)
      .addError(NotFoundWire)
      .annotate(
        OpenApi.Summary,
        "Send a delivery again now (a failed one becomes pending); re-enables its endpoint if a 410 had disabled it"
      )
  )
  .middleware(ApiKeyAuth) {}
