import type { SvcLayerOptions } from "../instance/layer.js"
import { instanceOf, type SvcSource } from "./instance.js"

export type { SvcSource } from "./instance.js"

/** The part of Hono's `Context` svc reads (kept structural: no type dependency on `hono`). */
export interface HonoContextLike {
  readonly req: { readonly raw: Request }
  // Hono types `env` as the runtime's bindings; on Node it holds the socket, on Bun the server.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly env: any
}

export interface SvcHonoOptions extends SvcLayerOptions {
  /**
   * The TCP peer's address for a request. Default: the socket on `@hono/node-server`
   * (`env.incoming.socket`), `server.requestIP()` on Bun, `info.remoteAddr` on Deno.
   */
  readonly remoteAddress?: (c: HonoContextLike) => string | undefined
}

const defaultRemoteAddress = (c: HonoContextLike): string | undefined => {
  const env = c.env as Record<string, unknown> | undefined
  if (env === undefined || env === null) return undefined
  const incoming = env.incoming as { socket?: { remoteAddress?: string } } | undefined
  if (incoming?.socket?.remoteAddress !== undefined) return incoming.socket.remoteAddress
  if (typeof env.requestIP === "function") {
    return (env.requestIP as (request: Request) => { address?: string } | null)(c.req.raw)?.address
  }
  const remoteAddr = env.remoteAddr as { hostname?: string } | undefined
  return remoteAddr?.hostname
}

/**
 * svc as a Hono handler. Mount it on the path that matches `basePath`; Hono passes the full URL
 * through, so `app.basePath()` / `app.route()` prefixes belong in svc's `basePath` too:
 *
 * ```ts
 * app.all("/consent/*", svcHono({ database, basePath: "/consent" }))
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
