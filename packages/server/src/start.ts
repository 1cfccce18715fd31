import { HttpLayerRouter, type HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { type InitFastPath, svcInstance, type SvcOptions } from "@svc/backend"
import { Cause, Layer, ManagedRuntime } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
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

/** Finds the system error (e.g. EADDRINUSE) behind Effect's wrappers, for a one-line message. */
const systemCode = (error: unknown, depth = 0): string | undefined => {
  if (typeof error !== "object" || error === null || depth > 8) return undefined
  const code = (error as { code?: unknown }).code
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code
  const inner = error as { cause?: unknown; error?: unknown; [key: symbol]: unknown }
  const fiberCause = Object.getOwnPropertySymbols(error).map((symbol) => inner[symbol]).find((value) => typeof value === "object")
  return systemCode(inner.cause, depth + 1) ?? systemCode(inner.error, depth + 1) ??
    (fiberCause === undefined ? undefined : systemCode(Cause.squash(fiberCause as Cause.Cause<unknown>), depth + 1))
}

const startupFailure = (error: unknown, host: string, port: number): string => {
  const code = systemCode(error)
  if (code === "EADDRINUSE") return `cannot listen on ${host}:${port}: the port is already in use`
  if (code === "EACCES") return `cannot listen on ${host}:${port}: permission denied`
  if (code !== undefined) return `could not start (${code})`
  return error instanceof Error && error.message !== "An error has occurred" ? error.message : `could not start: ${String(Cause.isCause(error) ? Cause.pretty(error) : error)}`
}

/**
 * Puts the `GET /init` fast path in front of the Effect HTTP pipeline: plain `GET <basePath>/init`
 * requests are answered by it; everything else, and whatever it declines, goes the usual way.
 */
const routeInitFirst = (server: Server, initPath: string, fastPath: () => InitFastPath | undefined) => {
  const pipeline = server.listeners("request") as Array<(req: IncomingMessage, res: ServerResponse) => void>
  server.removeAllListeners("request")
  const viaPipeline = (req: IncomingMessage, res: ServerResponse) => {
    for (const listener of pipeline) listener.call(server, req, res)
  }
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? ""
    const q = url.indexOf("?")
    const path = q === -1 ? url : url.slice(0, q)
    const answer = req.method === "GET" && path === initPath
      ? fastPath()?.(q === -1 ? "" : url.slice(q + 1), req.headers, req.socket.remoteAddress)
      : undefined
    if (answer === undefined) return viaPipeline(req, res)
    answer.then(
      ({ body, headers }) => {
        res.writeHead(200, { ...headers, "content-length": Buffer.byteLength(body) })
        res.end(body)
      },
      () => viaPipeline(req, res)
    )
  })
}

/** Serves an svc instance over node:http. Resolves once the port is bound. */
export const startServer = async (options: SvcOptions, start: StartOptions = {}): Promise<RunningServer> => {
  let initFastPath: InitFastPath | undefined
  const instance = svcInstance(options, {
    migrate: start.migrate ?? true,
    onInitFastPath: (fastPath) => {
      initFastPath = fastPath
    }
  })
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
  try {
    await runtime.runtime()
  } catch (error) {
    await runtime.dispose().catch(() => undefined)
    throw new Error(startupFailure(error, start.host ?? "0.0.0.0", start.port ?? 3000))
  }
  routeInitFirst(server, `${options.basePath?.replace(/\/+$/, "") ?? ""}/init`, () => initFastPath)
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
