import { HttpLayerRouter } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { InitFastPath, svcInstance, type SvcOptions } from "@svc/backend"
import { Context, Effect, Layer, ManagedRuntime } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { demoPageRoute } from "./demo-page.js"
import { answerProtocolError } from "./protocol-errors.js"
import { describeStartupFailure, listenFailure } from "./startup-failure.js"

/**
 * How `startServer` listens and serves: port, interface, migrations, shutdown drain, the demo page
 * and the `/init` fast path.
 *
 * @example
 * ```ts
 * import type { StartOptions } from "@svc/server"
 *
 * // Behind a Kubernetes service: every interface, and a drain shorter than the 30 s grace period.
 * const inCluster = {
 *   port: Number(process.env.PORT ?? 3000),
 *   host: "0.0.0.0",
 *   migrate: false, // a migration job runs `svc migrate` before the rollout
 *   drainTimeoutMs: 25_000
 * } satisfies StartOptions
 * ```
 */
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
   * Answer plain `GET /init` through the instance's `InitFastPath` in front of the Effect pipeline
   * (docs/architecture.md). Default `true`; off, every request takes the pipeline, with the same answers.
   */
  readonly initFastPath?: boolean
}

/**
 * A server `startServer` started: where it listens, its node:http `Server`, the fast path's count,
 * and `close` for a graceful shutdown.
 *
 * @example
 * ```ts
 * import type { RunningServer } from "@svc/server"
 *
 * // Graceful shutdown: on SIGTERM stop taking requests, let the running ones finish, close the database.
 * const closeOnSignal = (server: RunningServer) =>
 *   process.once("SIGTERM", () => {
 *     console.log(`closing ${server.bound}; /init fast path answered ${server.initFastPathAnswers()} requests`)
 *     server.close().then(() => process.exit(0), (error) => {
 *       console.error(error)
 *       process.exit(1)
 *     })
 *   })
 * ```
 */
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
   * `/init` the fast path declined (logged at debug, counted), went through the Effect pipeline.
   */
  readonly initFastPathAnswers: () => number
  /**
   * Stops accepting, lets in-flight requests finish (`/health/ready` answers 503 from now on),
   * then closes the database.
   */
  readonly close: () => Promise<void>
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void

/**
 * The node:http request listener of the whole app: plain `GET <basePath>/init` answered by the
 * instance's `InitFastPath` (see docs/architecture.md), everything else (and whatever the fast
 * path declines) by the Effect HTTP pipeline.
 */
class Listener extends Context.Tag("@svc/server/Listener")<Listener, {
  readonly listener: RequestListener
  /** Requests the fast path answered so far. */
  readonly initFastPathAnswers: () => number
}>() {}

/** The pipeline and the fast path in front of it; without `fastPath`, the pipeline alone. */
const withInitFastPath = (fastPath: InitFastPath["Type"], pipeline: RequestListener): RequestListener => {
  const answer = fastPath.answer
  if (answer === undefined) return pipeline
  return (req, res) => {
    const url = req.url ?? ""
    const q = url.indexOf("?")
    const path = q === -1 ? url : url.slice(0, q)
    const answered = req.method === "GET" && path === fastPath.path
      ? answer(q === -1 ? "" : url.slice(q + 1), req.headers, req.socket.remoteAddress)
      : undefined
    if (answered === undefined) return pipeline(req, res)
    // A failure is answered (500) by the fast path itself; the promise rejects only when its fiber
    // was interrupted, which nothing but a shutdown does: the connection is closed then.
    answered.then(({ body, headers, status }) => {
      res.writeHead(status, { ...headers, "content-length": Buffer.byteLength(body) })
      res.end(body)
    }, () => res.destroy())
  }
}

/**
 * Builds the routes (and with them the instance: database, migrations, services) and turns the
 * router into a node:http listener the way `NodeHttpServer.serve` does, but without a server:
 * `startServer` binds the port only once this is built.
 */
const listenerLayer = (
  routes: Layer.Layer<InitFastPath, unknown, HttpLayerRouter.HttpRouter>,
  initFastPath: boolean
): Layer.Layer<Listener, unknown> =>
  Layer.scoped(
    Listener,
    Effect.gen(function*() {
      const router = yield* HttpLayerRouter.HttpRouter
      const fastPath = yield* InitFastPath
      const pipeline = yield* NodeHttpServer.makeHandler(router.asHttpEffect())
      return {
        listener: initFastPath ? withInitFastPath(fastPath, pipeline) : pipeline,
        initFastPathAnswers: initFastPath ? fastPath.answered : () => 0
      }
    })
  ).pipe(Layer.provide(Layer.provideMerge(routes, HttpLayerRouter.layer)))

const listen = (server: Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen({ port, host }, () => {
      server.off("error", reject)
      resolve()
    })
  })

const isWildcard = (address: string) => address === "0.0.0.0" || address === "::"

/** A listening TCP server's address (`server.address()` is a string only for a pipe, null before listening). */
const boundAddress = (address: AddressInfo | string | null): AddressInfo => {
  if (address === null || typeof address === "string") throw new Error(`not listening on a TCP port: ${address}`)
  return address
}

/**
 * Serves an svc instance over node:http. Builds everything first (database, migrations, routes,
 * the request listener), then binds the port: once it accepts, every request is answered.
 * Resolves once the port is bound.
 *
 * @example
 * ```ts
 * import { defineConfig } from "@svc/backend"
 * import { startServer } from "@svc/server"
 *
 * const server = await startServer(
 *   defineConfig({
 *     database: { dialect: "postgres", url: process.env.DATABASE_URL ?? "postgres://svc@db/svc" },
 *     trustedOrigins: ["www.example.com"],
 *     manifest: {
 *       policyRules: [
 *         { id: "everyone", match: { default: true }, model: "opt-in", categories: ["measurement", "marketing"] }
 *       ]
 *     }
 *   }),
 *   { port: 3000 }
 * )
 * console.log(`svc at ${server.url}`) // migrations applied, port bound, every route answering
 * ```
 */
export const startServer = async (options: SvcOptions, start: StartOptions = {}): Promise<RunningServer> => {
  const port = start.port ?? 3000
  const host = start.host ?? "0.0.0.0"
  // Set as the drain starts: `/health/ready` answers 503 to whatever still reaches the server.
  let draining = false
  const instance = svcInstance(options, { draining: () => draining, migrate: start.migrate ?? true })
  const basePath = options.basePath?.replace(/\/+$/, "") ?? ""
  const routes = start.demoPage === true
    ? Layer.merge(instance.serverLayer, demoPageRoute(basePath))
    : instance.serverLayer
  const runtime = ManagedRuntime.make(
    listenerLayer(routes, start.initFastPath !== false).pipe(
      Layer.provide(NodeHttpServer.layerContext),
      Layer.provide(instance.runtime)
    )
  )
  const shutdownApp = async () => {
    await runtime.dispose()
    await instance.dispose()
  }
  let listener: Listener["Type"]
  try {
    listener = await runtime.runPromise(Listener)
  } catch (error) {
    await shutdownApp().catch(() => undefined)
    // eslint-disable-next-line preserve-caught-error -- the driver's error may quote the database password; this message is scrubbed of it
    throw new Error(describeStartupFailure(error, options))
  }
  const server = createServer({ keepAliveTimeout: 5_000 }, listener.listener)
  server.on("clientError", answerProtocolError)
  try {
    await listen(server, port, host)
  } catch (error) {
    await shutdownApp().catch(() => undefined)
    throw new Error(listenFailure(error, host, port), { cause: error })
  }
  const address = boundAddress(server.address())
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
    initFastPathAnswers: listener.initFastPathAnswers,
    close
  }
}
