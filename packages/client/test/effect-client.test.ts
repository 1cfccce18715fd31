import { FetchHttpClient } from "@effect/platform"
import { Effect, Either } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { mayMail, SvcLive } from "../examples/effect-service.js"
import { CLIENT_VERSION, createSvcClient, makeSvcApiClient } from "../src/index.js"
import { statusBody, subjectId } from "./support/fixtures.js"
import { type FakeServer, reply, replyError, startFakeServer } from "./support/fake-server.js"

let server: FakeServer
beforeAll(async () => {
  server = await startFakeServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

describe("makeSvcApiClient (Effect-native)", () => {
  it("is the derived HttpApiClient with base URL, key and version headers applied", async () => {
    server.handle(reply(200, statusBody))
    const program = Effect.gen(function*() {
      const api = yield* makeSvcApiClient({
        baseUrl: `${server.origin}/mount`,
        apiKey: "key-1",
        headers: { "x-app": "a" }
      })
      return yield* api.status.status()
    }).pipe(Effect.provide(FetchHttpClient.layer))
    const status = await Effect.runPromise(program)
    expect(status.timestamp).toBeInstanceOf(Date)
    expect(server.requests[0]).toMatchObject({
      url: "/mount/status",
      headers: {
        authorization: "Bearer key-1",
        "x-app": "a",
        "x-svc-version": CLIENT_VERSION,
        "x-svc-policy-contract": "1"
      }
    })
  })

  it("fails with the contract's error classes", async () => {
    server.handle(replyError(404, "NOT_FOUND"))
    const program = Effect.gen(function*() {
      const api = yield* makeSvcApiClient({ baseUrl: server.origin })
      return yield* api.subjects.get({ path: { id: subjectId as never }, urlParams: {} })
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.either)
    const result = await Effect.runPromise(program)
    expect(Either.isLeft(result) && result.left._tag).toBe("NotFound")
  })
})

describe("SvcHttpClient (the derived client as a service)", () => {
  it("answers through the tag, with the key and version headers of its layer", async () => {
    server.handle(reply(200, { results: { privacy_policy: { hasConsent: true, isLatestPolicy: true } } }))
    const allowed = await Effect.runPromise(mayMail("user-1").pipe(Effect.provide(SvcLive(server.origin, "key-2"))))
    expect(allowed).toBe(true)
    expect(server.requests[0]).toMatchObject({
      url: "/consents/check?externalId=user-1&type=privacy_policy",
      headers: { authorization: "Bearer key-2", "x-svc-version": CLIENT_VERSION }
    })
  })

  it("fails with the contract's error classes", async () => {
    server.handle(replyError(401, "UNAUTHORIZED"))
    const result = await Effect.runPromise(
      mayMail("user-1").pipe(Effect.provide(SvcLive(server.origin, "wrong")), Effect.either)
    )
    expect(Either.isLeft(result) && result.left._tag).toBe("Unauthorized")
  })
})

describe("fetch option", () => {
  it("createSvcClient calls the given fetch with a URL and a RequestInit", async () => {
    const seen: Array<{ url: string; method: string | undefined }> = []
    const client = createSvcClient({
      baseUrl: "https://consent.example.com/api",
      apiKey: "k",
      fetch: async (input, init) => {
        seen.push({ url: input.toString(), method: init.method })
        return new Response(JSON.stringify(statusBody), {
          status: 200,
          headers: { "content-type": "application/json" }
        })
      }
    })
    const result = await client.status()
    expect(result.ok).toBe(true)
    expect(seen).toEqual([{ url: "https://consent.example.com/api/status", method: "GET" }])
  })

  it("a fetch that throws or rejects is a NETWORK_ERROR; one that returns junk is not a rejection", async () => {
    const throwing = createSvcClient({
      baseUrl: "https://x.example",
      retry: false,
      fetch: () => {
        throw new TypeError("sync failure")
      }
    })
    const result = await throwing.status()
    expect(!result.ok && result.error.code).toBe("NETWORK_ERROR")
    expect(!result.ok && result.error.message).toContain("sync failure")
    const junk = createSvcClient({
      baseUrl: "https://x.example",
      retry: false,
      fetch: async () => ({}) as Response
    })
    const junkResult = await junk.status()
    expect(junkResult.ok).toBe(false)
  })
})

describe("default fetch", () => {
  afterEach(() => vi.unstubAllGlobals())

  it("is globalThis.fetch, looked up at each request", async () => {
    const client = createSvcClient({ baseUrl: "https://consent.example.com" })
    const stub = vi.fn(async () =>
      new Response(JSON.stringify(statusBody), { status: 200, headers: { "content-type": "application/json" } })
    )
    vi.stubGlobal("fetch", stub)
    const result = await client.status()
    expect(result.ok).toBe(true)
    expect(stub).toHaveBeenCalledTimes(1)
  })
})

describe("package", () => {
  it("resolves by name: @svc/client and @svc/client/testing", async () => {
    const main = await import("@svc/client")
    const testing = await import("@svc/client/testing")
    expect(typeof main.createSvcClient).toBe("function")
    expect(typeof main.unwrap).toBe("function")
    expect(typeof main.isSvcError).toBe("function")
    expect(typeof main.createIdentityToken).toBe("function")
    expect(typeof testing.createMockSvcClient).toBe("function")
    expect(typeof testing.ok).toBe("function")
    expect(typeof testing.err).toBe("function")
  })

  it("x-svc-version is the package version", () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../package.json"), "utf8")) as { version: string }
    expect(CLIENT_VERSION).toBe(pkg.version)
  })

  it("is ESM only with the index and testing entries", () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, "../package.json"), "utf8")) as {
      type: string
      exports: Record<string, string>
      engines: { node: string }
    }
    expect(pkg.type).toBe("module")
    expect(Object.keys(pkg.exports)).toEqual([".", "./testing"])
    expect(pkg.engines.node).toBe(">=20.19")
  })
})
