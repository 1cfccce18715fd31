import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"

export interface RecordedRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export type Handler = (request: RecordedRequest, res: ServerResponse) => void

export interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly requests: Array<RecordedRequest>
  /** Answers every request with `handler` (after any queued ones). */
  handle(handler: Handler): void
  /** Answers the next requests, one handler each, in order. */
  queue(...handlers: Array<Handler>): void
  reset(): void
  close(): Promise<void>
}

/** A node:http server on 127.0.0.1 and an ephemeral port whose answers each test scripts. */
export const startFakeServer = async (): Promise<FakeServer> => {
  const requests: Array<RecordedRequest> = []
  let queued: Array<Handler> = []
  let fallback: Handler = (_, res) => json(res, 500, { message: "no handler", cause: { code: "INTERNAL_ERROR" } })
  const sockets = new Set<Socket>()
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const recorded = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8")
      }
      requests.push(recorded)
      const handler = queued.shift() ?? fallback
      handler(recorded, res)
    })
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    handle: (handler) => {
      fallback = handler
    },
    queue: (...handlers) => {
      queued.push(...handlers)
    },
    reset: () => {
      requests.length = 0
      queued = []
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(body))
}

export const reply = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_, res) =>
  json(res, status, body, headers)

export const errorBody = (code: string, message = `${code} from the fake server`, reason?: string) => ({
  message,
  cause: reason === undefined ? { code } : { code, reason }
})

export const replyError = (status: number, code: string, headers: Record<string, string> = {}, reason?: string) =>
  reply(status, errorBody(code, undefined, reason), headers)

export const html = (status: number, headers: Record<string, string> = {}): Handler => (_, res) => {
  res.writeHead(status, { "content-type": "text/html", ...headers })
  res.end("<html><body><h1>502 Bad Gateway</h1></body></html>")
}

/** Drops the connection without answering. */
export const hangUp: Handler = (_, res) => {
  res.socket?.destroy()
}
