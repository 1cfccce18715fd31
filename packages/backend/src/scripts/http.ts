import { HttpLayerRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"
import { SvcConfig, type ResolvedConfig } from "../config/resolved.js"
import { staticResponse } from "../http/compression.js"
import { errorResponse } from "../http/error-response.js"
import { ipLimit } from "../http/rate-limit.js"
import { RateLimits } from "../limits/rate-limits.js"
import { consentModeScriptConfig } from "../policy/consent-mode.js"
import { type BundleKey, defaultBundlePath, makeBundleCache } from "./bundles.js"

/**
 * Origin the visitor's browser used. The host is the request's own `Host` (caches key on it); an
 * `X-Forwarded-Host` is never trusted, because the bundle is publicly cached and one forged header
 * behind a cache that ignores `Vary` would send every visitor's saves elsewhere. A proxy that
 * rewrites the host needs `script.backendURL` (as the spec says). `X-Forwarded-Proto` may only
 * upgrade the scheme to https (TLS ends at the proxy); it can never point the bundle at another host.
 */
const requestOrigin = (request: HttpServerRequest.HttpServerRequest): string => {
  const headers = request.headers
  const forwardedHttps = headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase() === "https"
  const host = headers.host
  if (host !== undefined && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) {
    const scheme = forwardedHttps || request.originalUrl.startsWith("https:") ? "https" : "http"
    return `${scheme}://${host}`
  }
  try {
    return new URL(request.originalUrl).origin
  } catch {
    return ""
  }
}

/**
 * Where svc is mounted, read from the request path when `basePath` is omitted: the path before the
 * script route's own path (`/consent` for `/consent/svc.js` on a host router prefixed `/consent`).
 * Only plain path segments count; anything else gives `""`, the root. The path is part of the URL
 * caches key on, so no bundle answers another path's request.
 */
const requestPrefix = (request: HttpServerRequest.HttpServerRequest, routePath: string): string => {
  let path: string
  try {
    path = new URL(request.originalUrl, "http://localhost").pathname
  } catch {
    return ""
  }
  if (!path.endsWith(routePath)) return ""
  const prefix = path.slice(0, path.length - routePath.length)
  return /^(\/[A-Za-z0-9._~%-]+)*$/.test(prefix) ? prefix : ""
}

/**
 * `backendURL`: configured; or the request origin plus `basePath`; or, when `basePath` is omitted,
 * the request origin plus the prefix the request path shows before `routePath`.
 */
export const backendUrlFor = (
  config: ResolvedConfig,
  request: HttpServerRequest.HttpServerRequest,
  routePath: string
): string =>
  config.script.backendURL ??
    `${requestOrigin(request)}${config.basePath === "" ? requestPrefix(request, routePath) : config.basePath}`

/** `GET /svc.js`, `/svc.headless.js`, `/svc.iab.js` (paths configurable), with ETag and 304. */
export const ScriptRoutesLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    if (!config.script.enabled) return Layer.empty
    // The page's own `svcConfig` still overrides what is embedded (`consentMode: false` turns it off).
    const cache = makeBundleCache({ ...consentModeScriptConfig(config.manifest), ...config.script.config })
    const limit = ipLimit(config, yield* RateLimits, "scripts")
    const route = (key: BundleKey, routePath: string) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const wait = yield* limit(request)
        if (wait !== undefined) {
          return errorResponse("RATE_LIMITED", `Too many requests: retry in ${wait} s`, { "retry-after": String(wait) })
        }
        const path = config.script.bundles[key] ?? defaultBundlePath(key)
        const bundle = path === undefined
          ? undefined
          : yield* Effect.promise(() => cache(path, backendUrlFor(config, request, routePath)))
        if (bundle === undefined) {
          yield* Effect.logWarning("script bundle file missing").pipe(Effect.annotateLogs({ bundle: key }))
          return errorResponse("SCRIPT_UNAVAILABLE", `The ${key} script bundle is not available`, {
            "retry-after": "60"
          })
        }
        const headers = {
          "cache-control": "public, max-age=300, stale-while-revalidate=86400",
          vary: "Host, X-Forwarded-Proto"
        }
        return staticResponse(bundle, request.headers["if-none-match"], headers)
      })
    return Layer.mergeAll(
      HttpLayerRouter.add("GET", config.script.path, route("full", config.script.path)),
      HttpLayerRouter.add(
        "GET",
        config.script.headlessPath,
        route("headless", config.script.headlessPath)
      ),
      HttpLayerRouter.add("GET", config.script.iabPath, route("iab", config.script.iabPath))
    )
  })
)
