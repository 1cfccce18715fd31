import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"
import type { ApiKeys } from "../access/api-keys.js"
import type { RequestContext } from "../access/request-context.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { bearerToken } from "./bearer.js"
import type { IpLocation } from "../geo/geo-ip.js"
import { storedAddress, visitorAddress } from "./client-ip.js"
import { visitorLocation } from "./location.js"
import { wideEventOf } from "./wide-event.js"

/** `Sec-GPC: 1` (the header browsers with GPC on send with every request). */
export const gpcHeader = (headers: Readonly<Record<string, string | undefined>>): boolean =>
  headers["sec-gpc"]?.trim() === "1"

/**
 * Reads a request's context for a service, once, in its handler: a plain call, no Effect. `lookup`
 * is the IP database's (`GeoIp`): the stored country is located as `/init` locates it, without
 * the visitor's overrides.
 */
export const requestContextOf = (
  config: ResolvedConfig,
  keys: ApiKeys,
  request: HttpServerRequest.HttpServerRequest,
  lookup: (ip: string) => IpLocation | null
): RequestContext => {
  const headers = request.headers
  const remoteAddress = Option.getOrUndefined(request.remoteAddress)
  const address = visitorAddress(config.ipAddress.headers, headers, remoteAddress)
  const location = visitorLocation(headers, lookup, () => address)
  const logFields = wideEventOf(request)
  if (logFields !== undefined) logFields["location.source"] = location.source
  const authorization = headers.authorization
  const key = bearerToken(authorization)
  return {
    apiKey: key !== undefined && keys.verify(key)
      ? "valid"
      : authorization === undefined || authorization.trim() === ""
      ? "none"
      : "invalid",
    ipAddress: storedAddress(config.ipAddress, address),
    userAgent: headers["user-agent"],
    gpc: gpcHeader(headers),
    country: location.country,
    logFields
  }
}
