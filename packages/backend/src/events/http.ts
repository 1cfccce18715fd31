import { HttpApiBuilder } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { EventDeliveries } from "./deliveries.js"

export const EventsHttpLive = HttpApiBuilder.group(SvcApi, "events", (handlers) =>
  Effect.gen(function*() {
    const deliveries = yield* EventDeliveries
    return handlers
      .handle("listDeliveries", ({ urlParams }) => deliveries.list(urlParams))
      .handle("retryDelivery", ({ path }) => deliveries.retry(path.id))
  }))
