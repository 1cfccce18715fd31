import { HttpLayerRouter, type HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { svcInstance, type SvcOptions } from "@svc/backend"
import { Layer, ManagedRuntime } from "effect"
import { createServer, type Server } from "node:http"
import { demoPageRoute } from "./demo-page.js"
import type { AddressInfo } from "node:net"

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
}

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:3000`. */
  readonly url: string
  readonly port: number
  readonly server: Server
  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  readonly close: () => Promise<void>
}

/** Serves an svc instance over node:http. Resolves once the port is bound. */
export const startServer = async (options: SvcOptions, start: StartOptions = {}): Promise<RunningServer> => {
  const instance = svcInstance(options, { migrate: start.migrate ?? true })
  const server = createServer({ keepAliveTimeout: 5_000 })
  const routes = start.demoPage === true
    ? Layer.merge(instance.standaloneLayer, demoPageRoute(options.basePath?.replace(/\/+$/, "") ?? ""))
    : instance.standaloneLayer
  const served = HttpLayerRouter.serve(routes, { disableLogger: true, disableListenLog: true }) as Layer.Layer<
    never,
    unknown,
    HttpServer.HttpServer
  >
  const app = served.pipe(
    Layer.provide(NodeHttpServer.layer(() => server, { port: start.port ?? 3000, host: start.host ?? "0.0.0.0" })),
    Layer.provide(instance.logger)
  )
  const runtime = ManagedRuntime.make(app)
  await runtime.runtime()
  const address = server.address() as AddressInfo
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address
  const shownHost = host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host
  let closing: Promise<void> | undefined
  const close = () =>
    closing ??= (async () => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), start.drainTimeoutMs ?? 10_000)
        timer.unref()
        server.close(() => {
          clearTimeout(timer)
          resolve()
        })
        server.closeIdleConnections()
      })
      await runtime.dispose()
      await instance.dispose()
    })()
  return { url: `http://${shownHost}:${address.port}`, port: address.port, server, close }
}
