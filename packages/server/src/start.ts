import { HttpLayerRouter } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { type InitFastPath, svcInstance, type SvcOptions } from "@svc/backend"
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { demoPageRoute } from "./demo-page.js"
import { answerProtocolError } from "./protocol-errors.js"
import { describeStartupFailure, listenFailure } from "./startup-failure.js"

export interface StartOptions {
  /** Port to listen on; `0` picks a free one. Default 3000. */
  readonly port?: number
  /** Interface to listen on. Default `0.0.0.0`. */
  readonly host?: string
  /** Apply pending migrations before serving. Default `true`. */
  readonly migrate?: boolean
  /** How long a shutdown waits for in-flight requests before closing connections. Default 10 s. */
  readonly drainTimeoutMs?: number
  /** Also serve `GET /demo`, a page with the banner. Default `false` (`svc serve` turns it on). */
  readonly demoPage?: boolean
  /**
   * Answer plain `GET /init` on the fast path in front of the Effect pipeline (docs/decisions.md,
   * "Speed"). Default `true`; off, every request takes the pipeline, with the same answers.
   */
  readonly initFastPath?: boolean
}

export interface RunningServer {
  /**
   * Base URL that reaches the server from this machine, e.g. `http://127.0.0.1:3000` (the loopback
   * address when it listens on every interface).
   */
  readonly url: string
  /** The address actually bound, e.g. `0.0.0.0:3000`, `[::]:3000` or `127.0.0.1:3000`. */
  readonly bound: string
  readonly port: number
  readonly server: Server
  /**
   * How many `GET /init` requests the fast path answered so far; every other request, and an
   * `/init` the fast path declined, went through the Effect pipeline (for diagnostics and tests).
   */
  readonly initFastPathAnswers: () => number
  /**
   * Stops accepting, lets in-flight requests finish (`/health/ready` answers 503 from now on),
   * then closes the database.
   */
  readonly close: () => Promise<void>
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void

/** The Effect HTTP pipeline of the whole app as one node:http request listener. */
class Pipeline extends Context.Tag("@svc/server/Pipeline")<Pipeline, RequestListener>() {}

/**
 * Builds the routes (and with them the instance: database, migrations, services) and turns the
 * router into a node:http listener the way `NodeHttpServer.serve` does, but without a server:
 * `startServer` binds the port only once this is built.
 */
const pipelineLayer = (routes: Layer.Layer<never, unknown, HttpLayerRouter.HttpRouter>) =>
  Layer.scoped(
    Pipeline,
    Effect.flatMap(HttpLayerRouter.toHttpEffect(routes), (app) => NodeHttpServer.makeHandler(app))
  ) as Layer.Layer<Pipeline, unknown>

/**
 * The one request listener: plain `GET <basePath>/init` is answered by the fast path (see
 * docs/decisions.md); everything else, and whatever the fast path declines, goes to the pipeline.
 */
const withInitFastPath = (
  initPath: string,
  fastPath: InitFastPath | undefined,
  pipeline: RequestListener,
  onAnswered: () => void
): RequestListener =>
  fastPath === undefined ? pipeline : (req, res) => {
    const url = req.url ?? ""
    const q = url.indexOf("?")
    const path = q === -1 ? url : url.slice(0, q)
    const answer = req.method === "GET" && path === initPath
      ? fastPath(q === -1 ? "" : url.slice(q + 1), req.headers, req.socket.remoteAddress)
      : undefined
    if (answer === undefined) return pipeline(req, res)
    answer.then(
      ({ body, headers }) => {
        onAnswered()
        res.writeHead(200, { ...headers, "content-length": Buffer.byteLength(body) })
        res.end(body)
      },
      () => pipeline(req, res)
    )
  }

const listen = (server: Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen({ port, host }, () => {
      server.off("error", reject)
      resolve()
    })
  })

const isWildcard = (address: string) => address === "0.0.0.0" || address === "::"

/**
 * Serves an svc instance over node:http. Builds everything first (database, migrations, routes,
 * the request listener), then binds the port: once it accepts, every request is answered.
 * Resolves once the port is bound.
 */
export const startServer = async (options: SvcOptions, start: StartOptions = {}): Promise<RunningServer> => {
  const port = start.port ?? 3000
  const host = start.host ?? "0.0.0.0"
  let initFastPath: InitFastPath | undefined
  // Set as the drain starts: `/health/ready` answers 503 to whatever still reaches the server.
  let draining = false
  const instance = svcInstance(options, {
    draining: () => draining,
    migrate: start.migrate ?? true,
    // The bundled server owns its process: an export may tune its heap (records/export-heap.ts).
    tuneHeap: true,
    onInitFastPath: (fastPath) => {
      initFastPath = fastPath
    }
  })
  const basePath = options.basePath?.replace(/\/+$/, "") ?? ""
  const routes = start.demoPage === true
    ? Layer.merge(instance.standaloneLayer, demoPageRoute(basePath))
    : instance.standaloneLayer
  const runtime = ManagedRuntime.make(
    pipelineLayer(routes).pipe(Layer.provide(NodeHttpServer.layerContext), Layer.provide(instance.runtime))
  )
  const shutdownApp = async () => {
    await runtime.dispose()
    await instance.dispose()
  }
  let pipeline: RequestListener
  try {
    pipeline = await runtime.runPromise(Pipeline)
  } catch (error) {
    await shutdownApp().catch(() => undefined)
    // eslint-disable-next-line preserve-caught-error -- the driver's error may quote the database password; this message is scrubbed of it
    throw new Error(describeStartupFailure(error, options))
  }
  let initFastPathAnswers = 0
  const server = createServer(
    { keepAliveTimeout: 5_000 },
    withInitFastPath(`${basePath}/init`, start.initFastPath === false ? undefined : initFastPath, pipeline, () => {
      initFastPathAnswers++
    })
  )
  server.on("clientError", answerProtocolError)
  try {
    await listen(server, port, host)
  } catch (error) {
    await shutdownApp().catch(() => undefined)
    throw new Error(listenFailure(error, host, port), { cause: error })
  }
  const address = server.address() as AddressInfo
  const boundHost = address.family === "IPv6" ? `[${address.address}]` : address.address
  const reachableHost = !isWildcard(address.address) ? boundHost : address.family === "IPv6" ? "[::1]" : "127.0.0.1"
  let closing: Promise<void> | undefined
  const close = () =>
    closing ??= (async () => {
      draining = true
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), start.drainTimeoutMs ?? 10_000)
        timer.unref()
        server.close(() => {
          clearTimeout(timer)
          resolve()
        })
        server.closeIdleConnections()
      })
      await shutdownApp()
    })()
  return {
    url: `http://${reachableHost}:${address.port}`,
    bound: `${boundHost}:${address.port}`,
    port: address.port,
    server,
    initFastPathAnswers: () => initFastPathAnswers,
    close
  }
}
