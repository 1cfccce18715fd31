import { HttpLayerRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"
import { SvcConfig, type ResolvedConfig } from "../config/resolved.js"
import { staticResponse } from "../http/compression.js"
import { errorResponse } from "../http/error-response.js"
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

/** `backendURL`: configured, or the request origin plus the mount prefix. */
export const backendUrlFor = (config: ResolvedConfig, request: HttpServerRequest.HttpServerRequest): string =>
  config.script.backendURL ?? `${requestOrigin(request)}${config.basePath}`

/** `GET /svc.js`, `/svc.headless.js`, `/svc.iab.js` (paths configurable), with ETag and 304. */
export const ScriptRoutesLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    if (!config.script.enabled) return Layer.empty
    // The page's own `svcConfig` still overrides what is embedded (`consentMode: false` turns it off).
    const cache = makeBundleCache({ ...consentModeScriptConfig(config.manifest), ...config.script.config })
    const limits = yield* RateLimits
    const route = (key: BundleKey) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const wait = yield* limits.consumeByIp("scripts", request)
        if (wait !== undefined) {
          return errorResponse("RATE_LIMITED", `Too many requests: retry in ${wait} s`, { "retry-after": String(wait) })
        }
        const path = config.script.bundles[key] ?? defaultBundlePath(key)
        const bundle = path === undefined ? undefined : yield* Effect.promise(() => cache(path, backendUrlFor(config, request)))
        if (bundle === undefined) {
          yield* Effect.logWarning("script bundle file missing").pipe(Effect.annotateLogs({ bundle: key }))
          return errorResponse("SCRIPT_UNAVAILABLE", `The ${key} script bundle is not available`, { "retry-after": "60" })
        }
        const headers = {
          "cache-control": "public, max-age=300, stale-while-revalidate=86400",
          vary: "Host, X-Forwarded-Proto"
        }
        return staticResponse(bundle, request.headers["if-none-match"], headers)
      })
    return Layer.mergeAll(
      HttpLayerRouter.add("GET", config.script.path as `/${string}`, route("full")),
      HttpLayerRouter.add("GET", config.script.headlessPath as `/${string}`, route("headless")),
      HttpLayerRouter.add("GET", config.script.iabPath as `/${string}`, route("iab"))
    )
  })
)
