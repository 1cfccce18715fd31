import { HttpLayerRouter } from "@effect/platform"
import { Context, Layer } from "effect"
import type { SvcOptions } from "../config/options.js"
import { MAX_BODY_BYTES } from "../config/resolved.js"
import { resolveOptions } from "../config/validate.js"
import { svcLoggerLayer } from "../http/log-format.js"
import { PeerAddress, PeerAddressLive } from "../http/peer-address.js"
import type { InitFastPath } from "./init-fast-path.js"
import { makeServerSvcLayer, makeStandaloneSvcLayer, makeSvcLayer, type SvcLayerOptions } from "./layer.js"

/**
 * What a host server knows about a request beyond the web `Request` itself.
 *
 * @example
 * ```ts
 * import { svcInstance, type SvcRequestContext } from "@svc/backend"
 * import type { IncomingMessage } from "node:http"
 *
 * const svc = svcInstance({ database: { dialect: "sqlite", url: "./svc.db" }, ipAddress: { ipAddressHeaders: [] } })
 * // The socket's address is the visitor's IP proof; a header could be forged, the socket cannot.
 * const contextOf = (req: IncomingMessage): SvcRequestContext => ({ remoteAddress: req.socket.remoteAddress })
 * export const handle = (request: Request, req: IncomingMessage) => svc.handler(request, contextOf(req))
 * ```
 */
export interface SvcRequestContext {
  /**
   * The TCP peer's address (e.g. `req.socket.remoteAddress`), used for IP proof when no
   * configured IP header is present. A web `Request` cannot carry it, and a header could be forged.
   */
  readonly remoteAddress?: string | undefined
}

/**
 * One svc instance, built by `svcInstance`: a web-standard `handler`, the same routes as Effect
 * layers for an Effect app, and `dispose` to close what it opened.
 *
 * @example
 * ```ts
 * import { svcInstance, type SvcInstance } from "@svc/backend"
 *
 * // Edge-style routing: paths under the instance's basePath are svc's, the rest the app's.
 * const route = (svc: SvcInstance, app: (request: Request) => Promise<Response>) => (request: Request) =>
 *   new URL(request.url).pathname.startsWith(`${svc.basePath}/`) ? svc.handler(request) : app(request)
 *
 * const svc = svcInstance({ database: { dialect: "sqlite", url: "./svc.db" }, basePath: "/consent" })
 * export default { fetch: route(svc, async () => new Response("the app", { status: 200 })) }
 * ```
 */
export interface SvcInstance {
  /** Web-standard handler: mount it in any framework that speaks Request/Response. */
  readonly handler: (request: Request, context?: SvcRequestContext) => Promise<Response>
  /** The mount prefix every svc route lives under (`basePath`, normalised; `""` at the root). */
  readonly basePath: string
  /**
   * svc's routes as a layer over `HttpLayerRouter.HttpRouter`, for composing into an Effect app:
   * only paths under `basePath` are svc's; everything else stays the host's.
   */
  readonly layer: Layer.Layer<never, unknown, HttpLayerRouter.HttpRouter>
  /** `layer` plus the spec's 404 body for unknown routes: what `handler` runs. */
  readonly standaloneLayer: Layer.Layer<never, unknown, HttpLayerRouter.HttpRouter>
  /**
   * `standaloneLayer` plus the `InitFastPath` service built with the same services: what the
   * bundled Node server (`svc serve`, `startServer`) runs, answering plain `GET /init` with it.
   */
  readonly serverLayer: Layer.Layer<InitFastPath, unknown, HttpLayerRouter.HttpRouter>
  /**
   * The instance's logger (`observability.format`, secrets scrubbed from every line): `handler`
   * and `svc serve` run with it; provide it to your own runtime when composing `layer`.
   */
  readonly logger: Layer.Layer<never>
  /**
   * What `handler` and `svc serve` run with: `logger`, and Effect's tracer switched off unless
   * `telemetry` is configured, so that spans cost nothing when nobody collects them. A host
   * composing `layer` keeps its own runtime (and tracer).
   */
  readonly runtime: Layer.Layer<never>
  /** Closes what `handler` opened (database pool, timers). */
  readonly dispose: () => Promise<void>
}

const tooLarge = () =>
  new Response(
    JSON.stringify({ message: `Request body exceeds ${MAX_BODY_BYTES} bytes`, cause: { code: "PAYLOAD_TOO_LARGE" } }),
    { status: 413, headers: { "content-type": "application/json" } }
  )

/**
 * A body sent without Content-Length is read here with the same limit the edge applies to
 * declared lengths, so a chunked upload cannot grow without bound in memory.
 */
const limitBody = async (request: Request): Promise<Request | Response> => {
  if (request.body === null || request.headers.has("content-length")) return request
  const reader = request.body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel()
      return tooLarge()
    }
    chunks.push(value)
  }
  const body = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    body.set(chunk, offset)
    offset += chunk.byteLength
  }
  // `duplex: "half"` is read by undici and not declared by the DOM's `RequestInit`.
  const init: RequestInit & { readonly duplex: "half" } = { body, duplex: "half" }
  return new Request(request, init)
}

/**
 * Builds an svc instance. Validates every option first and throws one `SvcConfigurationError`
 * listing all problems; nothing connects until the first request (or until `layer` is built).
 *
 * @example
 * ```ts
 * import { svcInstance } from "@svc/backend"
 *
 * const svc = svcInstance({
 *   database: { dialect: "postgres", url: process.env.DATABASE_URL! },
 *   apiKeys: [process.env.SVC_API_KEY!],
 *   policySnapshot: { signingKey: process.env.SVC_SNAPSHOT_KEY! }
 * }, { migrate: true })
 *
 * const status = await svc.handler(new Request("http://localhost/status"))
 * console.log(status.status, await status.json())
 * await svc.dispose()
 * ```
 */
export const svcInstance = (options: SvcOptions, layerOptions: SvcLayerOptions = {}): SvcInstance => {
  const config = resolveOptions(options)
  const layer = makeSvcLayer(config, layerOptions)
  const standaloneLayer = makeStandaloneSvcLayer(config, layerOptions)
  const serverLayer = makeServerSvcLayer(config, layerOptions)
  const logger = svcLoggerLayer(config)
  const runtime = config.telemetry === undefined ? Layer.merge(logger, Layer.setTracerEnabled(false)) : logger
  let web: {
    readonly handler: (request: Request, context?: Context.Context<never>) => Promise<Response>
    readonly dispose: () => Promise<void>
  } | undefined
  return {
    layer,
    standaloneLayer,
    serverLayer,
    logger,
    runtime,
    basePath: config.basePath,
    handler: async (request, context) => {
      web ??= HttpLayerRouter.toWebHandler(Layer.provide(Layer.merge(standaloneLayer, PeerAddressLive), runtime), {
        disableLogger: true
      })
      const limited = await limitBody(request)
      if (limited instanceof Response) return limited
      const peer = context?.remoteAddress
      return web.handler(
        limited,
        peer === undefined ? undefined : Context.make(PeerAddress, peer)
      )
    },
    dispose: async () => {
      const current = web
      web = undefined
      await current?.dispose()
    }
  }
}
