import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { EventDeliveries } from "../events/deliveries.js"
import { GeoIp } from "../geo/geo-ip.js"
import { clientIp, visitorAddress } from "../http/client-ip.js"
import { visitorLocation } from "../http/location.js"

export const StatusHttpLive = HttpApiBuilder.group(SvcApi, "status", (handlers) =>
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const deliveries = yield* EventDeliveries
    const geo = yield* GeoIp
    return handlers.handle("status", () =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        // An unreachable database leaves the counts out rather than failing the status answer.
        const events = yield* Effect.orElseSucceed(deliveries.counts, () => undefined)
        const remoteAddress = request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined
        const location = visitorLocation(
          request.headers,
          geo.lookup,
          () => visitorAddress(config.ipAddress.headers, request.headers, remoteAddress)
        )
        const database = geo.database()
        return {
          status: "ok" as const,
          version: config.version,
          timestamp: new Date(),
          client: {
            ip: clientIp(config.ipAddress, request.headers, remoteAddress),
            userAgent: request.headers["user-agent"] ?? null,
            acceptLanguage: request.headers["accept-language"] ?? null,
            country: location.country,
            region: location.region,
            locationSource: location.source
          },
          geo: database === null
            ? { database: "none" as const, buildDate: null }
            : { database: database.kind, buildDate: database.buildDate },
          ...(events === undefined ? {} : { events })
        }
      }))
  }))
