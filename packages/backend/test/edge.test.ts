import { describe, expect, it } from "@effect/vitest"
import { InitHeaders } from "@svc/api"
import { Effect } from "effect"
import http from "node:http"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "test-key-0123456789abcdef-0123456789"

describe.each(dialects)("edge behaviour [%s]", (dialect) => {
  const server = useServer(dialect, {
    apiKeys: [API_KEY],
    trustedOrigins: ["app.example.com", "pinned.example.com:8443", "*.shop.example"],
    version: "9.9.9-test"
  })

  it.effect("GET /status reports the configured version, a timestamp and the client", () =>
    Effect.gen(function*() {
      const client = yield* server.client
      const status = yield* client.status.status()
      expect(status.version).toBe("9.9.9-test")
      expect(status.timestamp).toBeInstanceOf(Date)
      expect(Math.abs(status.timestamp.getTime() - Date.now())).toBeLessThan(60_000)
      expect(status.client.ip).toBe("127.0.0.0")
    }))

  it("answers an unknown route with 404 and the error body", async () => {
    const response = await server.fetch("/no/such/route")
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ message: "No such route", cause: { code: "ROUTE_NOT_FOUND" } })
  })

  it("answers malformed JSON with 400 INVALID_REQUEST", async () => {
    const response = await server.fetch("/subjects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"type": "cookie_banner",'
    })
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body.cause).toEqual({ code: "INVALID_REQUEST" })
    expect(typeof body.message).toBe("string")
  })

  it("maps schema decode failures to the spec's body, naming the field", async () => {
    const response = await server.fetch("/subjects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "cookie_banner", subjectId: "sub_abcdefgh12", givenAt: Date.now() })
    })
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(Object.keys(body).sort()).toEqual(["cause", "message"])
    expect(body.cause.code).toBe("INVALID_REQUEST")
    expect(body.message).toContain("domain")
  })

  it("refuses a body over the documented limit with 413", async () => {
    const response = await server.fetch("/subjects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ padding: "x".repeat(200 * 1024) })
    })
    expect(response.status).toBe(413)
    expect((await response.json()).cause.code).toBe("PAYLOAD_TOO_LARGE")
  })

  it("stops reading a chunked body (no Content-Length) at the limit: no 2xx, and the server stays healthy", async () => {
    // The Node server cuts the connection once the limit is passed (it cannot answer while the
    // client is still sending); what matters is that the body is never buffered or processed.
    const outcome = await new Promise<string>((resolve) => {
      const url = new URL(`${server.url()}/subjects`)
      const request = http.request(
        {
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: { "content-type": "application/json" }
        },
        (response) => resolve(String(response.statusCode))
      )
      request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"))
      const chunk = Buffer.alloc(64 * 1024, "a")
      let sent = 0
      const pump = () => {
        while (sent < 20 * 1024 * 1024) {
          sent += chunk.length
          if (!request.write(chunk)) return void request.once("drain", pump)
        }
        request.end()
      }
      pump()
    })
    expect(["413", "ECONNRESET", "EPIPE"]).toContain(outcome)
    expect((await server.fetch("/status")).status).toBe(200)
  })

  it("echoes a well-formed x-request-id and generates one otherwise", async () => {
    const given = await server.fetch("/status", { headers: { "x-request-id": "req-123" } })
    expect(given.headers.get("x-request-id")).toBe("req-123")
    const generated = await server.fetch("/status", { headers: { "x-request-id": "bad id with spaces" } })
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
  })

  describe("API keys", () => {
    it("refuses a missing, empty or unknown key with 401 UNAUTHORIZED", async () => {
      for (const authorization of [undefined, "Bearer ", "Bearer wrong-key", `Basic ${API_KEY}`]) {
        const response = await server.fetch("/consents/check?externalId=u1&type=privacy_policy", {
          headers: authorization === undefined ? {} : { authorization }
        })
        expect(response.status, String(authorization)).toBe(401)
        const body = await response.json()
        expect(body.cause.code).toBe("UNAUTHORIZED")
        expect(JSON.stringify(body)).not.toContain(API_KEY)
      }
    })
  })

  describe("CORS", () => {
    const preflight = (path: string, origin: string) =>
      server.fetch(path, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" }
      })

    it("matches a trusted hostname on any web scheme and port, with credentials", async () => {
      for (const origin of ["https://app.example.com", "http://app.example.com", "http://app.example.com:3000"]) {
        const response = await server.fetch("/status", { headers: { origin } })
        expect(response.headers.get("access-control-allow-origin"), origin).toBe(origin)
        expect(response.headers.get("access-control-allow-credentials")).toBe("true")
        expect(response.headers.get("vary")).toMatch(/Origin/)
      }
    })

    it("pins a port when the entry has one", async () => {
      const ok = await server.fetch("/status", { headers: { origin: "https://pinned.example.com:8443" } })
      expect(ok.headers.get("access-control-allow-origin")).toBe("https://pinned.example.com:8443")
      const other = await server.fetch("/status", { headers: { origin: "https://pinned.example.com" } })
      expect(other.headers.get("access-control-allow-origin")).toBeNull()
    })

    it("matches subdomains for *.domain, not the bare domain", async () => {
      const sub = await server.fetch("/status", { headers: { origin: "https://a.b.shop.example" } })
      expect(sub.headers.get("access-control-allow-origin")).toBe("https://a.b.shop.example")
      const bare = await server.fetch("/status", { headers: { origin: "https://shop.example" } })
      expect(bare.headers.get("access-control-allow-origin")).toBeNull()
    })

    it("answers only trusted origins on every route but /init, preflights included", async () => {
      const untrusted = await server.fetch("/status", { headers: { origin: "https://evil.example" } })
      expect(untrusted.headers.get("access-control-allow-origin")).toBeNull()
      const blocked = await preflight("/subjects", "https://evil.example")
      expect(blocked.status).toBe(204)
      expect(blocked.headers.get("access-control-allow-origin")).toBeNull()
      const allowed = await preflight("/subjects", "https://app.example.com")
      expect(allowed.status).toBe(204)
      expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example.com")
      expect(allowed.headers.get("access-control-allow-methods")).toContain("POST")
      expect(allowed.headers.get("access-control-allow-headers")).toBe("content-type")
    })

    it("lets /init answer every origin: * without credentials unless trusted", async () => {
      const untrusted = await preflight("/init", "https://evil.example")
      expect(untrusted.headers.get("access-control-allow-origin")).toBe("*")
      expect(untrusted.headers.get("access-control-allow-credentials")).toBeNull()
      const trusted = await preflight("/init", "https://app.example.com")
      expect(trusted.headers.get("access-control-allow-origin")).toBe("https://app.example.com")
      expect(trusted.headers.get("access-control-allow-credentials")).toBe("true")
    })

    it("allows, when the preflight names no headers, every header input of /init a script may set", async () => {
      const response = await server.fetch("/init", {
        method: "OPTIONS",
        headers: { origin: "https://evil.example", "access-control-request-method": "GET" }
      })
      const allowed = (response.headers.get("access-control-allow-headers") ?? "").split(",").map((name) => name.trim())
      // Derived from the contract's InitHeaders, minus what the browser sets itself (Accept-Language, Sec-GPC).
      const scriptSet = Object.keys(InitHeaders.fields).filter((name) =>
        name !== "accept-language" && !name.startsWith("sec-")
      )
      const spec = ["x-svc-version", "x-svc-policy-contract", "x-svc-country", "x-svc-region", "x-svc-gpc",
        "x-svc-experiment", "x-svc-vendors"]
      expect(allowed).toEqual(
        expect.arrayContaining(["authorization", "content-type", "x-request-id", ...spec, ...scriptSet])
      )
      expect(allowed).not.toContain("sec-gpc")
    })
  })
})

describe("allow-all and no origins", () => {
  const all = useServer("sqlite", { trustedOrigins: ["*"] })
  const none = useServer("sqlite", {})

  it("`*` trusts every origin", async () => {
    const response = await all.fetch("/status", { headers: { origin: "https://anything.example" } })
    expect(response.headers.get("access-control-allow-origin")).toBe("https://anything.example")
  })

  it("no trustedOrigins allows none (but /init still answers with *)", async () => {
    const status = await none.fetch("/status", { headers: { origin: "https://anything.example" } })
    expect(status.headers.get("access-control-allow-origin")).toBeNull()
    const init = await none.fetch("/init", {
      method: "OPTIONS",
      headers: { origin: "https://anything.example", "access-control-request-method": "GET" }
    })
    expect(init.headers.get("access-control-allow-origin")).toBe("*")
  })
})

describe("basePath", () => {
  const server = useServer("sqlite", { basePath: "/api/svc/" })

  it("serves every route under the prefix, stripped before routing", async () => {
    const response = await server.fetch("/api/svc/status")
    expect(response.status).toBe(200)
    expect((await response.json()).status).toBe("ok")
    const spec = await server.fetch("/api/svc/spec.json")
    expect(spec.status).toBe(200)
    expect((await spec.json()).servers).toEqual([{ url: "/api/svc" }])
  })

  it("answers 404 outside the prefix", async () => {
    expect((await server.fetch("/status")).status).toBe(404)
    expect((await server.fetch("/api/svcx/status")).status).toBe(404)
  })
})
