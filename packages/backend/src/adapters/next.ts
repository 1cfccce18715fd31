import type { SvcLayerOptions } from "../instance/layer.js"
import { instanceOf, type SvcSource } from "./instance.js"

export type { SvcSource } from "./instance.js"

type RouteHandler = (request: Request) => Promise<Response>

/**
 * The route handlers of a Next.js App Router catch-all route, one per method svc answers.
 *
 * @example
 * ```ts
 * import { svcNext, type SvcNextRoutes } from "@svc/backend/next"
 *
 * // During maintenance reads are still served; writes are refused the way svc refuses when not ready.
 * const withMaintenance = (routes: SvcNextRoutes): SvcNextRoutes => {
 *   if (process.env.MAINTENANCE !== "1") return routes
 *   const closed = async () =>
 *     Response.json({ message: "Down for maintenance", cause: { code: "NOT_READY" } }, { status: 503 })
 *   return { ...routes, POST: closed, PUT: closed, PATCH: closed, DELETE: closed }
 * }
 * const routes = svcNext({ database: { dialect: "postgres", url: process.env.DATABASE_URL! }, basePath: "/consent" })
 * export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = withMaintenance(routes)
 * ```
 */
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
 * svc as Next.js App Router route handlers, for a catch-all route whose folder is `basePath`
 * (`app/consent/[...svc]/route.ts` for `basePath: "/consent"`).
 *
 * Next.js hands a route no socket, so the client IP comes from the configured IP headers only
 * (`ipAddress.ipAddressHeaders`; `next start` sets `X-Forwarded-For` when the client sent none,
 * hosting platforms set their own). Trust only headers your proxy overwrites.
 *
 * @example
 * ```ts
 * // app/consent/[...svc]/route.ts
 * import { svcNext } from "@svc/backend/next"
 *
 * export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = svcNext({
 *   database: { dialect: "postgres", url: process.env.DATABASE_URL! },
 *   basePath: "/consent",
 *   // On Vercel: the header its edge sets and a visitor cannot.
 *   ipAddress: { ipAddressHeaders: ["x-vercel-forwarded-for"] }
 * })
 * ```
 */
export const svcNext = (source: SvcSource, layerOptions?: SvcLayerOptions): SvcNextRoutes => {
  const instance = instanceOf(source, layerOptions)
  const handle: RouteHandler = (request) => instance.handler(request)
  return { GET: handle, HEAD: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle }
}
