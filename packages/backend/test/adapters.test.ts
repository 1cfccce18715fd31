import { serve } from "@hono/node-server"
import { type SqlDialect, svcInstance } from "@svc/backend"
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
  const options = () => ({ database: db.database, basePath: "/consent", observability: { requests: "none" as const } })

  beforeAll(async () => {
    db = await freshDatabase(dialect)
  })
  afterAll(async () => {
    for (const server of servers) await closed(server)
    for (const dispose of disposers) await dispose()
    await db.drop()
  })

  it("node:http: the socket address is the IP, bodies stream, the 128 KiB limit holds", async () => {
    const listener = svcNode(options(), { migrate: true })
    disposers.push(listener.instance.dispose)
    const server = createServer(listener).listen(0, "127.0.0.1")
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
    // outside the basePath: svc's own 404 body
    expect((await (await fetch(`${base}/nope`)).json()).cause.code).toBe("ROUTE_NOT_FOUND")
  })

  it("Express: app.use(basePath, svcNode(...)) keeps the mount path, also after express.json()", async () => {
    const plain = svcNode(options())
    const parsed = svcNode(options())
    disposers.push(plain.instance.dispose, parsed.instance.dispose)
    const app = express()
    app.get("/hello", (_req, res) => {
      res.send("host route")
    })
    app.use("/consent", plain)
    const behindParser = express()
    behindParser.use(express.json())
    behindParser.use("/consent", parsed)
    const server = app.listen(0, "127.0.0.1")
    const server2 = behindParser.listen(0, "127.0.0.1")
    servers.push(server, server2)
    const base = await listening(server)
    expect(await saveThrough(db, `${base}/consent`)).toBe("127.0.0.0")
    expect(await (await fetch(`${base}/hello`)).text()).toBe("host route")
    expect(await saveThrough(db, `${await listening(server2)}/consent`)).toBe("127.0.0.0")
  })

  it("Hono on @hono/node-server: app.all(basePath/*, svcHono(...)) reads the socket", async () => {
    const handler = svcHono(options())
    disposers.push(handler.instance.dispose)
    const app = new Hono()
    app.get("/hello", (c) => c.text("host route"))
    app.all("/consent/*", handler)
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server
    servers.push(server)
    const base = await listening(server)
    expect(await saveThrough(db, `${base}/consent`)).toBe("127.0.0.0")
    expect(await (await fetch(`${base}/hello`)).text()).toBe("host route")
    const status = await fetch(`${base}/consent/status`)
    expect((await status.json()).client.ip).toBe("127.0.0.0")
  })

  it("Hono: a remoteAddress option replaces the default lookup", async () => {
    const handler = svcHono(options(), { remoteAddress: () => "203.0.113.77" })
    disposers.push(handler.instance.dispose)
    const app = new Hono()
    app.all("/consent/*", handler)
    const saved = cookieSave()
    const response = await app.request("http://svc.example/consent/subjects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(saved)
    })
    expect(response.status).toBe(200)
    expect(await storedIp(db, saved.subjectId as string)).toBe("203.0.113.0")
  })

  it("Fastify: a plugin under basePath, with or without a register prefix; JSON parsing stays the host's", async () => {
    const app = Fastify()
    const atRoot = svcFastify(options())
    disposers.push(atRoot.instance.dispose)
    app.post("/echo", async (request) => request.body)
    await app.register(atRoot)
    const prefixed = Fastify()
    const underPrefix = svcFastify(options())
    disposers.push(underPrefix.instance.dispose)
    await prefixed.register(underPrefix, { prefix: "/consent" })
    await app.listen({ port: 0, host: "127.0.0.1" })
    await prefixed.listen({ port: 0, host: "127.0.0.1" })
    servers.push(app.server, prefixed.server)
    const base = await listening(app.server)
    expect(await saveThrough(db, `${base}/consent`)).toBe("127.0.0.0")
    expect(await saveThrough(db, `${await listening(prefixed.server)}/consent`)).toBe("127.0.0.0")
    const echo = await fetch(`${base}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: "{\"a\":1}" })
    expect(await echo.json()).toEqual({ a: 1 })
    const head = await fetch(`${base}/consent/status`, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe("")
    const tooBig = await postChunked(`${base}/consent/subjects`, 200 * 1024)
    expect(tooBig.status).toBe(413)
  })

  it("Next.js route handlers (real NextRequest): the IP comes from the trusted header", async () => {
    const instance = svcInstance({ ...options(), ipAddress: { ipAddressHeaders: ["x-forwarded-for"] } })
    disposers.push(instance.dispose)
    const routes = svcNext(instance)
    const saved = cookieSave()
    const response = await routes.POST(new NextRequest("http://shop.example/consent/subjects", {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.77, 10.0.0.2" },
      body: JSON.stringify(saved)
    }))
    expect(response.status).toBe(200)
    expect(await storedIp(db, saved.subjectId as string)).toBe("203.0.113.0")
    const read = await routes.GET(new NextRequest(`http://shop.example/consent/subjects/${saved.subjectId}`))
    expect(read.status).toBe(200)
    expect((await read.json()).subjectChoice.categories.marketing.value).toBe(true)
    const preflight = await routes.OPTIONS(new NextRequest("http://shop.example/consent/subjects", {
      method: "OPTIONS",
      headers: { origin: "https://elsewhere.example", "access-control-request-method": "POST" }
    }))
    expect(preflight.status).toBe(204)
  })
})
