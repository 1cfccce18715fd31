import { createServer } from "node:http"
import { Readable } from "node:stream"
import { svcInstance } from "@svc/backend"

const svc = svcInstance({
  database: { dialect: "sqlite", url: "./svc.db" },
  // This server faces the visitors, so their IP is the socket address; svc reads it from this header only.
  ipAddress: { ipAddressHeaders: ["x-socket-address"] }
}, { migrate: true })

createServer(async (req, res) => {
  const headers = new Headers(req.headers as Record<string, string>)
  headers.set("x-socket-address", req.socket.remoteAddress ?? "")
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : Readable.toWeb(req)
  const response = await svc.handler(new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method, headers, body, duplex: "half"
  } as RequestInit))
  res.writeHead(response.status, Object.fromEntries(response.headers))
  res.end(Buffer.from(await response.arrayBuffer()))
}).listen(Number(process.env.PORT ?? 3000))
