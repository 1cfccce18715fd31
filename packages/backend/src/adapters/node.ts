import type { IncomingMessage, ServerResponse } from "node:http"
import { Readable } from "node:stream"
import { pipeline } from "node:stream/promises"
import type { SvcLayerOptions } from "../instance/layer.js"
import type { SvcInstance } from "../instance/svc-instance.js"
import { instanceOf, type SvcSource } from "./instance.js"

export type { SvcSource } from "./instance.js"

/**
 * A `node:http` request listener that is also Express/Connect middleware: `(req, res, next?)`.
 * `instance` is the svc instance behind it (call `instance.dispose()` on shutdown).
 *
 * @example
 * ```ts
 * import { svcNode, type SvcNodeListener } from "@svc/backend/node"
 * import { createServer } from "node:http"
 *
 * // On shutdown: stop accepting, then close svc's database pool.
 * const stopOn = (signal: NodeJS.Signals, server: ReturnType<typeof createServer>, svc: SvcNodeListener) =>
 *   process.once(signal, () => server.close(() => void svc.instance.dispose()))
 *
 * const svc = svcNode({ database: { dialect: "sqlite", url: "./svc.db" } }, { migrate: true })
 * stopOn("SIGTERM", createServer(svc).listen(3000), svc)
 * ```
 */
export interface SvcNodeListener {
  (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void
  readonly instance: SvcInstance
}

/** Express, Connect and body parsers add these to the request. */
interface FrameworkRequest extends IncomingMessage {
  readonly originalUrl?: string
  readonly body?: unknown
  readonly _body?: boolean
}

const hasBody = (method: string) => method !== "GET" && method !== "HEAD"

/** The request's full URL. Express and Connect strip their mount path from `req.url`, not from `originalUrl`. */
const requestUrl = (req: FrameworkRequest): string => {
  const scheme = "encrypted" in req.socket && req.socket.encrypted === true ? "https" : "http"
  const path = req.originalUrl ?? req.url ?? "/"
  try {
    return new URL(path, `${scheme}://${req.headers.host ?? "localhost"}`).href
  } catch {
    // A Host header that is not a host: the routes read `Host` themselves and ignore it.
    return new URL(path, `${scheme}://localhost`).href
  }
}

const requestHeaders = (req: IncomingMessage, dropBodyHeaders: boolean): Headers => {
  const headers = new Headers()
  const raw = req.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!
    if (name.startsWith(":")) continue // HTTP/2 pseudo-headers
    if (dropBodyHeaders && /^(content-length|content-encoding|transfer-encoding)$/i.test(name)) continue
    headers.append(name, raw[i + 1]!)
  }
  return headers
}

/**
 * A body a body parser (`express.json()`, `express.raw()`, `express.text()`) already read: the
 * stream is spent, so the parsed value is sent on. A parsed object is serialised back to JSON
 * (svc accepts JSON only); mounting svc before body parsers avoids the round trip.
 */
const consumedBody = (req: FrameworkRequest): BodyInit | null | undefined => {
  if (req._body !== true && !req.readableEnded) return undefined
  const body = req.body
  if (body === undefined || body === null) return null
  if (typeof body === "string") return body
  if (body instanceof Uint8Array) {
    // A view on a SharedArrayBuffer cannot be a fetch body: it is copied.
    return body.buffer instanceof ArrayBuffer
      ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
      : Uint8Array.from(body)
  }
  return JSON.stringify(body)
}

/**
 * The web `Request` for a Node request: the body streams through (the handler bounds it).
 *
 * @example
 * ```ts
 * import { svcInstance } from "@svc/backend"
 * import { sendWebResponse, toWebRequest } from "@svc/backend/node"
 * import { createServer } from "node:http"
 *
 * // A server of your own that passes only /consent to svc, with the socket address as IP proof.
 * const svc = svcInstance({ database: { dialect: "sqlite", url: "./svc.db" }, basePath: "/consent" })
 * createServer(async (req, res) => {
 *   const response = req.url?.startsWith("/consent/")
 *     ? await svc.handler(toWebRequest(req), { remoteAddress: req.socket.remoteAddress })
 *     : new Response("Not found", { status: 404 })
 *   await sendWebResponse(response, req, res)
 * }).listen(3000)
 * ```
 */
export const toWebRequest = (req: FrameworkRequest, signal: AbortSignal | null = null): Request => {
  const method = req.method ?? "GET"
  if (!hasBody(method)) return new Request(requestUrl(req), { method, headers: requestHeaders(req, false), signal })
  const consumed = consumedBody(req)
  const body: BodyInit | null = consumed === undefined
    // Node's global `ReadableStream` is `stream/web`'s, but @types/node and the DOM lib declare it
    // apart, and neither is assignable to the other (`pipeThrough`, `getReader`, async iteration).
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the same object, typed by the declaration fetch reads
    ? Readable.toWeb(req) as ReadableStream<Uint8Array>
    : consumed
  // A streamed body needs `duplex: "half"`, which undici reads and the DOM's `RequestInit` does not declare.
  const init: RequestInit & { readonly duplex: "half" } = {
    method,
    headers: requestHeaders(req, consumed !== undefined),
    body,
    signal,
    duplex: "half"
  }
  return new Request(requestUrl(req), init)
}

/**
 * Writes a web `Response` to a Node response, streaming the body with backpressure.
 *
 * @example
 * ```ts
 * import { sendWebResponse } from "@svc/backend/node"
 * import { createServer } from "node:http"
 *
 * // Any fetch-style handler served by node:http; HEAD requests get the headers without the body.
 * const app = async (request: Request) => Response.json({ path: new URL(request.url).pathname })
 * createServer(async (req, res) => {
 *   await sendWebResponse(await app(new Request(`http://${req.headers.host}${req.url}`)), req, res)
 * }).listen(3000)
 * ```
 */
export const sendWebResponse = async (response: Response, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  res.statusCode = response.status
  const cookies = response.headers.getSetCookie()
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value)
  })
  if (cookies.length > 0) res.setHeader("set-cookie", cookies)
  if (response.body === null || req.method === "HEAD") {
    await response.body?.cancel()
    res.end()
    return
  }
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the DOM's ReadableStream is Node's `stream/web` one at run time; the two declarations are not assignable (see toWebRequest)
  await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>), res)
}

/**
 * svc as a `node:http` request listener, Express or Connect middleware. The socket's address is
 * handed to svc for IP proof (configured IP headers still come first); request and response
 * bodies stream, with the 128 KiB request limit applied while reading. As a plain listener:
 * `createServer(svcNode(options)).listen(3000)`.
 *
 * @example
 * ```ts
 * import type { DatabaseOptions } from "@svc/backend"
 * import { svcNode } from "@svc/backend/node"
 * import express from "express"
 *
 * const app = express()
 * // Mounted before the body parser; Express keeps the mount path in req.originalUrl, which svc reads.
 * const database: DatabaseOptions = { dialect: "postgres", url: process.env.DATABASE_URL! }
 * app.use("/consent", svcNode({ database, basePath: "/consent" }, { migrate: true }))
 * app.use(express.json())
 * app.listen(3000)
 * ```
 */
export const svcNode = (source: SvcSource, layerOptions?: SvcLayerOptions): SvcNodeListener => {
  const instance = instanceOf(source, layerOptions)
  const listener = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void => {
    const aborted = new AbortController()
    res.once("close", () => {
      if (!res.writableFinished) aborted.abort()
    })
    instance.handler(toWebRequest(req, aborted.signal), { remoteAddress: req.socket.remoteAddress })
      .then((response) => sendWebResponse(response, req, res))
      .catch((error: unknown) => {
        if (aborted.signal.aborted || res.writableEnded) return
        if (next !== undefined && !res.headersSent) return next(error)
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json" })
          res.end(JSON.stringify({ message: "Internal server error", cause: { code: "INTERNAL_ERROR" } }))
        } else {
          res.destroy()
        }
      })
  }
  return Object.assign(listener, { instance })
}
