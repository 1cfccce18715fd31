import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { CLIENT_VERSION, createSvcClient } from "../src/index.js"
import { statusBody, subjectId, subjectViewBody } from "./support/fixtures.js"
import { type FakeServer, reply, startFakeServer } from "./support/fake-server.js"

let server: FakeServer
beforeAll(async () => {
  server = await startFakeServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  server.handle(reply(200, statusBody))
})

const owned = {
  Accept: "text/html",
  authorization: "Bearer stolen",
  "Content-Type": "text/plain",
  "X-Request-Id": "caller",
  "x-svc-version": "9.9.9",
  "X-SVC-Policy-Contract": "2"
}

describe("request headers", () => {
  it("sends x-svc-version and x-svc-policy-contract: 1 on every request", async () => {
    const client = createSvcClient({ baseUrl: server.origin })
    await client.status()
    server.queue(reply(200, subjectViewBody))
    await client.subjects.get(subjectId)
    expect(server.requests).toHaveLength(2)
    for (const request of server.requests) {
      expect(request.headers["x-svc-version"]).toBe(CLIENT_VERSION)
      expect(request.headers["x-svc-policy-contract"]).toBe("1")
      expect(request.headers["accept"]).toBe("application/json")
    }
  })

  it("merges call headers over client headers, and replaces client-owned names", async () => {
    const client = createSvcClient({
      baseUrl: server.origin,
      apiKey: "key-1",
      headers: { "x-tenant-hint": "a", "x-both": "client", ...owned }
    })
    await client.consents.check(
      { externalId: "u", types: ["privacy_policy"] },
      { headers: { "x-both": "call", ...owned }, requestId: "req-1" }
    )
    const headers = server.requests[0]!.headers
    expect(headers["x-tenant-hint"]).toBe("a")
    expect(headers["x-both"]).toBe("call")
    expect(headers["accept"]).toBe("application/json")
    expect(headers["authorization"]).toBe("Bearer key-1")
    expect(headers["content-type"]).toBeUndefined()
    expect(headers["x-request-id"]).toBe("req-1")
    expect(headers["x-svc-version"]).toBe(CLIENT_VERSION)
    expect(headers["x-svc-policy-contract"]).toBe("1")
  })

  it("accepts a Headers instance", async () => {
    const client = createSvcClient({ baseUrl: server.origin, headers: new Headers({ "X-From-Headers": "yes" }) })
    await client.status({ headers: new Headers({ "X-Call": "1" }) })
    expect(server.requests[0]!.headers["x-from-headers"]).toBe("yes")
    expect(server.requests[0]!.headers["x-call"]).toBe("1")
  })

  it("a client without a key never sends a caller's Authorization header", async () => {
    const client = createSvcClient({ baseUrl: server.origin, headers: { authorization: "Bearer x" } })
    await client.status({ headers: { Authorization: "Bearer y" } })
    expect(server.requests[0]!.headers["authorization"]).toBeUndefined()
  })

  it("sends the key on key-only methods and on links and saves (to verify them), not on public reads", async () => {
    const client = createSvcClient({ baseUrl: server.origin, apiKey: "key-1" })
    await client.status()
    await client.init()
    await client.manifest()
    await client.subjects.get(subjectId)
    await client.subjects.list({ externalId: "u" })
    await client.subjects.identify(subjectId, { externalId: "u" })
    await client.subjects.create({
      type: "privacy_policy",
      domain: "example.com",
      subjectId,
      givenAt: 1_700_000_000_000
    })
    const auth = server.requests.map((r) => `${r.method} ${r.url.split("?")[0]} ${r.headers["authorization"] ?? "-"}`)
    expect(auth).toEqual([
      "GET /status -",
      "GET /init -",
      "GET /manifest -",
      `GET /subjects/${subjectId} -`,
      "GET /subjects Bearer key-1",
      `PATCH /subjects/${subjectId} Bearer key-1`,
      "POST /subjects Bearer key-1"
    ])
  })

  it("appends request paths to the base URL and its mount path", async () => {
    for (const baseUrl of [`${server.origin}/consent/v3`, `${server.origin}/consent/v3/`]) {
      server.reset()
      await createSvcClient({ baseUrl }).status()
      expect(server.requests[0]!.url).toBe("/consent/v3/status")
    }
  })

  it("sends a random UUID as x-request-id by default, and reports it", async () => {
    const client = createSvcClient({ baseUrl: server.origin })
    const first = await client.status()
    const second = await client.status()
    const ids = server.requests.map((r) => r.headers["x-request-id"])
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(ids[0]).not.toBe(ids[1])
    expect(first.ok && first.requestId).toBe(ids[0])
    expect(second.ok && second.requestId).toBe(ids[1])
  })

  it("library code reads no environment variables", () => {
    const dir = join(import.meta.dirname, "../src")
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))
    expect(files.length).toBeGreaterThan(10)
    for (const file of files) {
      // Comments are dropped first: the JSDoc examples show users reading their own environment.
      const code = ts.transpileModule(readFileSync(join(dir, file), "utf8"), {
        compilerOptions: { removeComments: true, target: ts.ScriptTarget.ES2022 }
      }).outputText
      expect(code, file).not.toMatch(/process\.env|Deno\.env|import\.meta\.env/)
    }
  })
})
