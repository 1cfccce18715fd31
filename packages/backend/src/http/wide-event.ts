import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"

/*
 * Fields a handler adds to its request's single log event (for example
 * `consent.decisionSource` on saves). The edge opens one per request and logs it once. It is kept
 * beside the request object rather than in the fiber's context, which would be copied per request.
 */
const events = new WeakMap<HttpServerRequest.HttpServerRequest, Record<string, unknown>>()

/** Called by the edge when a request arrives. */
export const openWideEvent = (request: HttpServerRequest.HttpServerRequest): Record<string, unknown> => {
  const event: Record<string, unknown> = {}
  events.set(request, event)
  return event
}

/** A request's wide event; `undefined` for a request the edge did not open. */
export const wideEventOf = (request: HttpServerRequest.HttpServerRequest): Record<string, unknown> | undefined =>
  events.get(request)

/** The current request's wide event; `None` outside a request served through the edge. */
export const currentWideEvent: Effect.Effect<Option.Option<Record<string, unknown>>> = Effect.map(
  Effect.serviceOption(HttpServerRequest.HttpServerRequest),
  (request) => Option.flatMap(request, (r) => Option.fromNullable(events.get(r)))
)
