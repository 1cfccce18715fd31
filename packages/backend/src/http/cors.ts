import { InitHeaders } from "@svc/api"

/*
 * CORS per the spec's "CORS and origins": an entry matches a hostname on any web scheme, a port
 * pins it, `*.domain` matches subdomains, `*` matches every origin. `/init` answers every origin;
 * every other route answers trusted origins only. CORS decides who may read, it is not auth.
 */

interface Entry {
  readonly host: string
  readonly port: string | undefined
  readonly wildcard: boolean
}

export interface OriginPolicy {
  readonly allowsAll: boolean
  /** Whether a browser page at `origin` (the Origin header) is trusted. */
  readonly isTrusted: (origin: string) => boolean
}

const parseEntry = (entry: string): Entry => {
  const wildcard = entry.startsWith("*.")
  const rest = wildcard ? entry.slice(2) : entry
  const bracket = rest.startsWith("[")
  const portAt = bracket ? rest.indexOf("]:") + 1 : rest.lastIndexOf(":")
  return portAt > 0
    ? { host: rest.slice(0, portAt), port: rest.slice(portAt + 1), wildcard }
    : { host: rest, port: undefined, wildcard }
}

const defaultPorts: Record<string, string> = { "http:": "80", "https:": "443" }

export const makeOriginPolicy = (trustedOrigins: ReadonlyArray<string>): OriginPolicy => {
  const allowsAll = trustedOrigins.includes("*")
  const entries = trustedOrigins.filter((e) => e !== "*").map(parseEntry)
  const cache = new Map<string, boolean>()
  const check = (origin: string): boolean => {
    let url: URL
    try {
      url = new URL(origin)
    } catch {
      return false
    }
    const port = url.port === "" ? defaultPorts[url.protocol] : url.port
    if (port === undefined) return false // not a web scheme
    const host = url.hostname.toLowerCase()
    return entries.some((e) =>
      (e.wildcard ? host.endsWith(`.${e.host}`) : host === e.host) && (e.port === undefined || e.port === port)
    )
  }
  return {
    allowsAll,
    isTrusted: (origin) => {
      if (allowsAll) return true
      let trusted = cache.get(origin)
      if (trusted === undefined) {
        trusted = check(origin)
        if (cache.size < 1000) cache.set(origin, trusted)
      }
      return trusted
    }
  }
}

export const CORS_ALLOW_METHODS = "GET, HEAD, POST, PUT, PATCH, OPTIONS"
/**
 * Headers a browser script may set on a cross-origin call: the API key, the body type, the request
 * id, and the `/init` header inputs of the contract (`InitHeaders`) except those the browser sets
 * itself (`Accept-Language` is CORS-safelisted, `Sec-` names are forbidden to scripts).
 */
export const CORS_ALLOW_HEADERS = [
  "authorization",
  "content-type",
  "x-request-id",
  ...Object.keys(InitHeaders.fields).filter((name) => name !== "accept-language" && !name.startsWith("sec-"))
].join(", ")
export const CORS_EXPOSE_HEADERS = "x-request-id, etag"

/** The CORS response headers for one request, or `undefined` when the origin may not read it. */
export const corsHeaders = (
  policy: OriginPolicy,
  origin: string | undefined,
  publicRoute: boolean
): Record<string, string> | undefined => {
  if (origin === undefined) return undefined
  if (policy.isTrusted(origin)) {
    return {
      "access-control-allow-origin": origin,
      "access-control-allow-credentials": "true",
      "access-control-expose-headers": CORS_EXPOSE_HEADERS
    }
  }
  return publicRoute
    ? { "access-control-allow-origin": "*", "access-control-expose-headers": CORS_EXPOSE_HEADERS }
    : undefined
}
