import { Predicate } from "effect"
import { propertyOf } from "../codec/guards.js"
import type { SvcLayerOptions } from "../instance/layer.js"
import { instanceOf, type SvcSource } from "./instance.js"

export type { SvcSource } from "./instance.js"

/**
 * The part of Hono's `Context` svc reads (kept structural: no type dependency on `hono`): the raw
 * request, and the runtime's bindings where the socket is found.
 *
 * @example
 * ```ts
 * import { type HonoContextLike, svcHono } from "@svc/backend/hono"
 * import { Hono } from "hono"
 *
 * // Behind a proxy of your own that always overwrites this header with the client's address.
 * const fromProxy = (c: HonoContextLike) => c.req.raw.headers.get("x-client-address") ?? undefined
 * const app = new Hono()
 * app.all("/consent/*", svcHono({ database: { dialect: "sqlite", url: "./svc.db" }, basePath: "/consent" }, {
 *   remoteAddress: fromProxy
 * }))
 * ```
 */
export interface HonoContextLike {
  readonly req: { readonly raw: Request }
  // Hono types `env` as the runtime's bindings; on Node it holds the socket, on Bun the server.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly env: any
}

/**
 * How `svcHono` builds its instance (`migrate`, `draining`) and where it finds a request's TCP peer.
 *
 * @example
 * ```ts
 * import { svcHono, type SvcHonoOptions } from "@svc/backend/hono"
 * import { Hono } from "hono"
 *
 * // On Fly.io the proxy always sets Fly-Client-IP; migrations run in the release command instead.
 * const options: SvcHonoOptions = {
 *   migrate: false,
 *   remoteAddress: (c) => c.req.raw.headers.get("fly-client-ip") ?? undefined
 * }
 * const svc = svcHono({ database: { dialect: "sqlite", url: "/data/svc.db" }, basePath: "/consent" }, options)
 * const app = new Hono().all("/consent/*", svc)
 * ```
 */
export interface SvcHonoOptions extends SvcLayerOptions {
  /**
   * The TCP peer's address for a request. Default: the socket on `@hono/node-server`
   * (`env.incoming.socket`), `server.requestIP()` on Bun, `info.remoteAddr` on Deno.
   */
  readonly remoteAddress?: (c: HonoContextLike) => string | undefined
}

const defaultRemoteAddress = (c: HonoContextLike): string | undefined => {
  const env: unknown = c.env
  if (!Predicate.isObject(env)) return undefined
  const socketAddress = propertyOf(propertyOf(propertyOf(env, "incoming"), "socket"), "remoteAddress")
  if (Predicate.isString(socketAddress)) return socketAddress
  if ("requestIP" in env && Predicate.isFunction(env.requestIP)) {
    const address = propertyOf(env.requestIP(c.req.raw), "address")
    return Predicate.isString(address) ? address : undefined
  }
  const hostname = propertyOf(propertyOf(env, "remoteAddr"), "hostname")
  return Predicate.isString(hostname) ? hostname : undefined
}

/**
 * svc as a Hono handler. Mount it on the path that matches `basePath`; Hono passes the full URL
 * through, so `app.basePath()` / `app.route()` prefixes belong in svc's `basePath` too.
 *
 * @example
 * ```ts
 * import { serve } from "@hono/node-server"
 * import type { DatabaseOptions } from "@svc/backend"
 * import { svcHono } from "@svc/backend/hono"
 * import { Hono } from "hono"
 *
 * const app = new Hono()
 * app.get("/", (c) => c.text("Example shop"))
 * const database: DatabaseOptions = { dialect: "sqlite", url: "./svc.db" }
 * app.all("/consent/*", svcHono({ database, basePath: "/consent" }, { migrate: true }))
 * serve({ fetch: app.fetch, port: 3000 })
 * ```
 */
export const svcHono = (source: SvcSource, options: SvcHonoOptions = {}) => {
  const { remoteAddress = defaultRemoteAddress, ...layerOptions } = options
  const instance = instanceOf(source, layerOptions)
  return Object.assign(
    (c: HonoContextLike): Promise<Response> => instance.handler(c.req.raw, { remoteAddress: remoteAddress(c) }),
    { instance }
  )
}
