import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { EventDeliveries } from "../events/deliveries.js"
import { clientIp } from "../http/client-ip.js"
import { requestLocation } from "../http/location.js"

export const StatusHttpLive = HttpApiBuilder.group(SvcApi, "status", (handlers) =>
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const deliveries = yield* EventDeliveries
    return handlers.handle("status", () =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        // An unreachable database leaves the counts out rather than failing the status answer.
        const events = yield* Effect.orElseSucceed(deliveries.counts, () => undefined)
        const location = requestLocation(request.headers)
        return {
          status: "ok" as const,
          version: config.version,
          timestamp: new Date(),
          client: {
            ip: clientIp(
              config.ipAddress,
              request.headers,
              request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined
            ),
            userAgent: request.headers["user-agent"] ?? null,
            acceptLanguage: request.headers["accept-language"] ?? null,
            country: location.country,
            region: location.region
          },
          ...(events === undefined ? {} : { events })
        }
      }))
  }))
