import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { EventDelivery, EventDeliveryList, SafeText } from "@svc/schema"
import { Schema } from "effect"
import { NotFoundWire } from "../errors.js"
import { ApiKeyAuth } from "../security.js"

/**
 * Consent event deliveries (API key): what is waiting or has failed, and a manual retry.
 *
 * @example
 * ```ts
 * import { HttpApi, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
 * import { EventsGroup } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // An operator's cron job sends every failed webhook delivery again once the receiver is back.
 * class Deliveries extends HttpApi.make("deliveries").add(EventsGroup) {}
 * const retryFailed = (apiKey: string) =>
 *   Effect.gen(function*() {
 *     const svc = yield* HttpApiClient.make(Deliveries, {
 *       baseUrl: "https://consent.example.com",
 *       transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(apiKey))
 *     })
 *     const { deliveries } = yield* svc.events.listDeliveries({ urlParams: { status: "failed", limit: 500 } })
 *     yield* Effect.forEach(deliveries, (delivery) => svc.events.retryDelivery({ path: { id: delivery.id } }))
 *   })
 * ```
 */
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
