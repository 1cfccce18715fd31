import { serve } from "@hono/node-server"
import { type SqlDialect, svcInstance, type SvcOptions } from "@svc/backend"
import { svcFastify } from "@svc/backend/fastify"
import { svcHono } from "@svc/backend/hono"
import { svcNext } from "@svc/backend/next"
import { svcNode } from "@svc/backend/node"
import express from "express"
import Fastify from "fastify"
import { Hono } from "hono"
import { NextRequest } from "next/server.js"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cookieSave } from "./support/consent-saves.js"
import { dialects, type FreshDatabase, freshDatabase } from "./support/dialects.js"

const listening = (server: Server): Promise<string> =>
  new Promise((resolve) => {
    if (server.listening) return resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
    server.once("listening", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))
  })

const closed = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

const storedIp = async (db: FreshDatabase, subjectId: string) => {
  const rows = await db.query("SELECT ip_address FROM svc_consents WHERE subject_id = ?", [subjectId])
  expect(rows).toHaveLength(1)
  return rows[0]!.ip_address
}

/** Saves through `url` (the mounted base) and returns the stored IP of that save. */
const saveThrough = async (db: FreshDatabase, url: string, headers: Record<string, string> = {}) => {
  const body = cookieSave()
  const response = await fetch(`${url}/subjects`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })
  expect(response.status).toBe(200)
  expect((await response.json()).subjectId).toBe(body.subjectId)
  return storedIp(db, body.subjectId as string)
}

/** A body of `size` bytes sent chunked (no Content-Length), straight through node:http. */
const postChunked = (url: string, size: number): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (body += chunk))
      res.on("end", () => resolve({ status: res.statusCode!, body }))
    })
    req.on("error", (error: NodeJS.ErrnoException) => {
      // The server may answer 413 and close before the whole upload is written.
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error)
    })
    const chunk = Buffer.alloc(16 * 1024, 0x20)
    for (let sent = 0; sent < size; sent += chunk.length) req.write(chunk)
    req.end()
  })

describe.each(dialects)("framework adapters save with the caller's IP [%s]", (dialect: SqlDialect) => {
  let db: FreshDatabase
  const servers: Array<Server> = []
  const disposers: Array<() => Promise<void>> = []
  // The README's "Using the backend from your own server" shows these lines as they are here.
  const instance = (options: Omit<SvcOptions, "database"> = {}) => {
    const database = db.database
    const svc = svcInstance({ database, basePath: "/consent", observability: { requests: "none" }, ...options })
    disposers.push(svc.dispose)
    return svc
  }

  beforeAll(async () => {
    db = await freshDatabase(dialect)
  })
  afterAll(async () => {
    for (const server of servers) await closed(server)
    for (const dispose of disposers) await dispose()
    await db.drop()
  })

  it("node:http: the socket address is the IP, bodies stream, the 128 KiB limit holds", async () => {
    const database = db.database
    const svc = svcInstance({ database, basePath: "/consent" }, { migrate: true })
    const server = createServer(svcNode(svc))
    server.listen(0, "127.0.0.1")
    disposers.push(svc.dispose)
    servers.push(server)
    const base = `${await listening(server)}/consent`
    expect(await saveThrough(db, base)).toBe("127.0.0.0")
    // a configured IP header still comes first
    expect(await saveThrough(db, base, { "x-forwarded-for": "198.51.100.23" })).toBe("198.51.100.0")
    const tooBig = await postChunked(`${base}/subjects`, 200 * 1024)
    expect(tooBig.status).toBe(413)
    expect(JSON.parse(tooBig.body).cause.code).toBe("PAYLOAD_TOO_LARGE")
    const status = await fetch(`${base}/status`)
    expect(status.status).toBe(200)
    expect((await status.json()).client.ip).toBe("127.0.0.0")
    // with no IP headers trusted, a forged X-Forwarded-For changes nothing: the socket counts
    const direct = createServer(svcNode(instance({ ipAddress: { ipAddressHeaders: [] } })))
    direct.listen(0, "127.0.0.1")
    servers.push(direct)
    expect(await saveThrough(db, `${await listening(direct)}/consent`, { "x-forwarded-for": "198.51.100.23" })).toBe(
      "127.0.0.0"
    )
    // outside the basePath: svc's own 404 body
    expect((await (await fetch(`${base}/nope`)).json()).cause.code).toBe("ROUTE_NOT_FOUND")
  })

  it("Express: app.use(basePath, svcNode(...)) keeps the mount path, also after express.json()", async () => {
    const svc = instance()
    const app = express()
    app.use("/consent", svcNode(svc))
    app.get("/hello", (_req, res) => {
      res.send("host route")
    })
    const behindParser = express()
    behindParser.use(express.json())
    behindParser.use("/consent", svcNode(svc))
    const server = app.listen(0, "127.0.0.1")
    const server2 = behindParser.listen(0, "127.0.0.1")
    servers.push(server, server2)
    const base = await listening(server)
    expect(await saveThrough(db, `${base}/consent`)).toBe("127.0.0.0")
    expect(await (await fetch(`${base}/hello`)).text()).toBe("host route")
    expect(await saveThrough(db, `${await listening(server2)}/consent`)).toBe("127.0.0.0")
  })

  it("Hono on @hono/node-server: app.all(basePath/*, svcHono(...)) reads the socket", async () => {
    const svc = instance()
    const app = new Hono()
    app.all("/consent/*", svcHono(svc))
    app.get("/hello", (c) => c.text("host route"))
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server
    servers.push(server)
    const base = await listening(server)
    expect(await saveThrough(db, `${base}/consent`)).toBe("127.0.0.0")
    expect(await (await fetch(`${base}/hello`)).text()).toBe("host route")
    const status = await fetch(`${base}/consent/status`)
    expect((await status.json()).client.ip).toBe("127.0.0.0")
  })

  it("Hono: a remoteAddress option replaces the default lookup", async () => {
    const app = new Hono()
    app.all("/consent/*", svcHono(instance(), { remoteAddress: () => "203.0.113.77" }))
    const saved = cookieSave()
    const response = await app.request("http://svc.example/consent/subjects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(saved)
    })
    expect(response.status).toBe(200)
    expect(await storedIp(db, saved.subjectId as string)).toBe("203.0.113.0")
  })

  it("Hono: the default lookup reads Bun's server.requestIP() and Deno's info.remoteAddr", async () => {
    const app = new Hono()
    app.all("/consent/*", svcHono(instance()))
    // Bun hands its server as `env` (`requestIP` is a method that reads its server), Deno the connection info.
    class BunServer {
      readonly peer = "198.51.100.7"
      requestIP(_request: Request) {
        return { address: this.peer }
      }
    }
    const deno = { remoteAddr: { hostname: "192.0.2.9" } }
    const runtimes = [[new BunServer(), "198.51.100.0"], [deno, "192.0.2.0"]] as const
    for (const [env, stored] of runtimes) {
      const saved = cookieSave()
      const response = await app.request("http://svc.example/consent/subjects", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(saved)
      }, env)
      expect(response.status).toBe(200)
      expect(await storedIp(db, saved.subjectId as string)).toBe(stored)
    }
  })

  it("Fastify: a plugin under basePath, with or without a register prefix; JSON parsing stays the host's", async () => {
    const svc = instance()
    const app = Fastify()
    await app.register(svcFastify(svc))
    app.post("/echo", async (request) => request.body)
    const prefixed = Fastify()
    await prefixed.register(svcFastify(svc), { prefix: "/consent" })
    await app.listen({ port: 0, host: "127.0.0.1" })
    await prefixed.listen({ port: 0, host: "127.0.0.1" })
    servers.push(app.server, prefixed.server)
    const base = await listening(app.server)
    expect(await saveThrough(db, `${base}/consent`)).toBe("127.0.0.0")
    expect(await saveThrough(db, `${await listening(prefixed.server)}/consent`)).toBe("127.0.0.0")
    const echo = await fetch(`${base}/echo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}'
    })
    expect(await echo.json()).toEqual({ a: 1 })
    const head = await fetch(`${base}/consent/status`, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe("")
    const tooBig = await postChunked(`${base}/consent/subjects`, 200 * 1024)
    expect(tooBig.status).toBe(413)
  })

  it("Next.js route handlers (real NextRequest): the IP comes from the trusted header", async () => {
    const svc = instance({ ipAddress: { ipAddressHeaders: ["x-forwarded-for"] } })
    const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = svcNext(svc)
    const saved = cookieSave()
    const response = await POST(
      new NextRequest("http://shop.example/consent/subjects", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.77, 10.0.0.2" },
        body: JSON.stringify(saved)
      })
    )
    expect(response.status).toBe(200)
    expect(await storedIp(db, saved.subjectId as string)).toBe("203.0.113.0")
    const read = await GET(new NextRequest(`http://shop.example/consent/subjects/${saved.subjectId}`))
    expect(read.status).toBe(200)
    expect((await read.json()).subjectChoice.categories.marketing.value).toBe(true)
    const preflight = await OPTIONS(
      new NextRequest("http://shop.example/consent/subjects", {
        method: "OPTIONS",
        headers: { origin: "https://elsewhere.example", "access-control-request-method": "POST" }
      })
    )
    expect(preflight.status).toBe(204)
    const head = await HEAD(new NextRequest("http://shop.example/consent/status", { method: "HEAD" }))
    expect(head.status).toBe(200)
    expect(await head.text()).toBe("")
    for (const [handler, method] of [[PUT, "PUT"], [PATCH, "PATCH"], [DELETE, "DELETE"]] as const) {
      // each method reaches svc's router: no route here, so svc's own 404 body
      const answer = await handler(new NextRequest("http://shop.example/consent/no-such-route", { method }))
      expect((await answer.json()).cause.code, method).toBe("ROUTE_NOT_FOUND")
    }
  })
})
