import type { SvcLayerOptions } from "../instance/layer.js"
import { instanceOf, type SvcSource } from "./instance.js"

export type { SvcSource } from "./instance.js"

type RouteHandler = (request: Request) => Promise<Response>

/** The route handlers of a Next.js App Router catch-all route, one per method svc answers. */
export interface SvcNextRoutes {
  readonly GET: RouteHandler
  readonly HEAD: RouteHandler
  readonly POST: RouteHandler
  readonly PUT: RouteHandler
  readonly PATCH: RouteHandler
  readonly DELETE: RouteHandler
  readonly OPTIONS: RouteHandler
}

/**
 * svc as Next.js App Router route handlers, for a catch-all route whose folder is `basePath`:
 *
 * ```ts
 * // app/consent/[...svc]/route.ts  (basePath: "/consent")
 * export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = svcNext({ database, basePath: "/consent" })
 * ```
 *
 * Next.js hands a route no socket, so the client IP comes from the configured IP headers only
 * (`ipAddress.ipAddressHeaders`; `next start` sets `X-Forwarded-For` when the client sent none,
 * hosting platforms set their own). Trust only headers your proxy overwrites.
 */
export const svcNext = (source: SvcSource, layerOptions?: SvcLayerOptions): SvcNextRoutes => {
  const instance = instanceOf(source, layerOptions)
  const handle: RouteHandler = (request) => instance.handler(request)
  return { GET: handle, HEAD: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle }
}
