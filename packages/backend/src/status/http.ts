import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { clientIp } from "../http/client-ip.js"
import { requestLocation } from "../http/location.js"

export const StatusHttpLive = HttpApiBuilder.group(SvcApi, "status", (handlers) =>
  Effect.gen(function*() {
    const config = yield* SvcConfig
    return handlers.handle("status", () =>
      Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
        const location = requestLocation(request.headers)
        return {
          status: "ok" as const,
          version: config.version,
          timestamp: new Date(),
          client: {
            ip: clientIp(config.ipAddress, request.headers, request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined),
            userAgent: request.headers["user-agent"] ?? null,
            acceptLanguage: request.headers["accept-language"] ?? null,
            country: location.country,
            region: location.region
          }
        }
      }))
  }))
