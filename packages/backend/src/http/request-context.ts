import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"
import type { ApiKeys } from "../access/api-keys.js"
import type { RequestContext } from "../access/request-context.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { bearerToken } from "./bearer.js"
import { clientIp } from "./client-ip.js"
import { requestLocation } from "./location.js"
import { wideEventOf } from "./wide-event.js"

/** `Sec-GPC: 1` (the header browsers with GPC on send with every request). */
export const gpcHeader = (headers: Readonly<Record<string, string | undefined>>): boolean =>
  headers["sec-gpc"]?.trim() === "1"

/** Reads a request's context for a service, once, in its handler: a plain call, no Effect. */
export const requestContextOf = (
  config: ResolvedConfig,
  keys: ApiKeys,
  request: HttpServerRequest.HttpServerRequest
): RequestContext => {
  const headers = request.headers
  const authorization = headers.authorization
  const key = bearerToken(authorization)
  return {
    apiKey: key !== undefined && keys.verify(key)
      ? "valid"
      : authorization === undefined || authorization.trim() === ""
      ? "none"
      : "invalid",
    ipAddress: clientIp(config.ipAddress, headers, Option.getOrUndefined(request.remoteAddress)),
    userAgent: headers["user-agent"],
    gpc: gpcHeader(headers),
    country: requestLocation(headers).country,
    logFields: wideEventOf(request)
  }
}
