import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { documentedCodes } from "../src/documented.js"
import { createSvcClient, isSvcError, SvcError, unwrap } from "../src/index.js"
import { checkBody, manifestBody, statusBody, subjectId, subjectViewBody } from "./support/fixtures.js"
import { type FakeServer, html, reply, replyError, startFakeServer } from "./support/fake-server.js"

let server: FakeServer
beforeAll(async () => {
  server = await startFakeServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const client = () => createSvcClient({ baseUrl: server.origin, apiKey: "key-1", retry: false })
const failed = async (call: Promise<unknown>) => {
  const result = (await call) as { ok: boolean; error?: SvcError }
  if (result.ok || result.error === undefined) throw new Error("expected a failure")
  return result.error
}

const save = {
  type: "cookie_banner",
  domain: "example.com",
  subjectId,
  givenAt: 1_700_000_000_000,
  preferences: {
    necessary: true,
    measurement: false,
    marketing: false,
    functionality: false,
    experience: false
  }
} as const

describe("backend errors", () => {
  it("NOT_FOUND from subjects.get carries message, status and requestId, and is not retryable", async () => {
    server.handle(replyError(404, "NOT_FOUND"))
    const error = await failed(client().subjects.get(subjectId, undefined, { requestId: "r-404" }))
    expect(error).toBeInstanceOf(SvcError)
    expect(error).toMatchObject({
      code: "NOT_FOUND",
      message: "NOT_FOUND from the fake server",
      status: 404,
      requestId: "r-404",
      retryable: false,
      serverCode: undefined
    })
  })

  it("each documented code of a method comes back as that code", async () => {
    const cases = [
      [409, "IDENTITY_CONFLICT", () => client().subjects.identify(subjectId, { externalId: "u" })],
      [401, "IDENTITY_TOKEN_INVALID",
        () => client().subjects.identify(subjectId, { externalId: "u", identityToken: "t" })],
      [409, "CONFLICT",
        () => client().legalDocuments.publish("dpa", { version: "2", hash: "h", effectiveDate: "2026-01-01" })],
      [409, "SUBJECT_CONFLICT", () => client().subjects.create(save)],
      [409, "POLICY_SNAPSHOT_EXPIRED", () => client().subjects.create(save)],
      [409, "POLICY_SNAPSHOT_INVALID", () => client().subjects.create(save)],
      [401, "UNAUTHORIZED", () => client().subjects.list({ externalId: "u" })],
      [401, "UNAUTHORIZED", () => client().consents.check({ externalId: "u", types: ["dpa"] })],
      [401, "UNAUTHORIZED", () => client().experiments.summary("e")],
      [400, "INVALID_REQUEST", () => client().status()],
      [413, "PAYLOAD_TOO_LARGE", () => client().subjects.create(save)],
      [415, "UNSUPPORTED_MEDIA_TYPE", () => client().subjects.create(save)],
      [500, "INTERNAL_ERROR", () => client().init()],
      [503, "DATABASE_ERROR", () => client().subjects.get(subjectId)]
    ] as const
    for (const [status, code, call] of cases) {
      server.queue(replyError(status, code))
      const error = await failed(call())
      expect({ code: error.code, status: error.status }).toEqual({ code, status })
      expect(error.retryable).toBe(status >= 500)
    }
  })

  it("STALE_POLICY carries its reason; an unrecognised reason is undefined", async () => {
    for (const reason of ["policy-changed", "decision-mismatch", "incomplete-inputs"]) {
      server.queue(replyError(422, "STALE_POLICY", {}, reason))
      const error = await failed(client().subjects.create(save))
      expect(error).toMatchObject({ code: "STALE_POLICY", reason, status: 422 })
    }
    server.queue(replyError(422, "STALE_POLICY", {}, "moon-phase"))
    const error = await failed(client().subjects.create(save))
    expect(error.code).toBe("STALE_POLICY")
    expect(error.reason).toBeUndefined()
  })

  it("STALE_POLICY with a missing or non-string reason is still STALE_POLICY, reason undefined", async () => {
    const bodies = [
      { message: "stale", cause: { code: "STALE_POLICY" } },
      { message: "stale", cause: { code: "STALE_POLICY", reason: 7 } },
      { message: "stale", cause: { code: "STALE_POLICY", reason: null } },
      { message: "stale", cause: { code: "STALE_POLICY", reason: { nested: true } } }
    ]
    for (const body of bodies) {
      server.queue(reply(422, body))
      const error = await failed(client().subjects.create(save))
      expect(error).toMatchObject({ code: "STALE_POLICY", status: 422, retryable: false, serverCode: undefined })
      expect(error.reason).toBeUndefined()
      expect(error.message).toBe("stale")
      expect(error.message).not.toContain("not documented")
    }
  })

  it("the documented codes are read from the contract for every method's route", () => {
    const routes: Array<[string, string, string]> = [
      ["GET", "/status", "INTERNAL_ERROR"],
      ["GET", "/init", "INTERNAL_ERROR"],
      ["GET", "/manifest", "INTERNAL_ERROR"],
      ["GET", "/consents/check", "UNAUTHORIZED"],
      ["PATCH", "/subjects/:id", "IDENTITY_CONFLICT"],
      ["GET", "/subjects/:id", "NOT_FOUND"],
      ["POST", "/subjects", "STALE_POLICY"],
      ["GET", "/subjects", "UNAUTHORIZED"],
      ["PUT", "/legal-documents/:type/current", "CONFLICT"],
      ["GET", "/experiments/:id/summary", "UNAUTHORIZED"]
    ]
    for (const [method, route, code] of routes) expect(documentedCodes(method, route).has(code)).toBe(true)
    expect(documentedCodes("GET", "/subjects/:id").has("STALE_POLICY")).toBe(false)
    expect(documentedCodes("GET", "/nowhere").size).toBe(0)
  })

  it("a documented code whose body does not decode keeps its code (never reported as undocumented)", async () => {
    // NOT_FOUND is documented for subjects.get; a non-string message fails the contract's decode.
    server.queue(reply(404, { message: 42, cause: { code: "NOT_FOUND" } }))
    const error = await failed(client().subjects.get(subjectId))
    expect(error).toMatchObject({ code: "NOT_FOUND", status: 404, serverCode: undefined })
    expect(error.message).not.toContain("not documented")
    // The same code where the method does not document it stays undocumented.
    server.queue(reply(422, { message: "stale", cause: { code: "STALE_POLICY" } }))
    const other = await failed(client().subjects.get(subjectId))
    expect(other).toMatchObject({ code: "UNEXPECTED_RESPONSE", serverCode: "STALE_POLICY", status: 422 })
  })
})

describe("UNEXPECTED_RESPONSE", () => {
  it("an HTML proxy error page", async () => {
    server.handle(html(502))
    const error = await failed(client().status())
    expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 502, retryable: true, serverCode: undefined })
    expect(error.message).toMatch(/HTTP 502 \(text\/html\)/)
  })

  it("an HTML page at a status the method documents", async () => {
    server.handle(html(404))
    const error = await failed(client().subjects.get(subjectId))
    expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 404, retryable: false })
  })

  it("an undocumented backend code is kept in serverCode (ROUTE_NOT_FOUND on a documented and an undocumented status)", async () => {
    server.handle(replyError(404, "ROUTE_NOT_FOUND"))
    for (const call of [() => client().status(), () => client().subjects.get(subjectId)]) {
      const error = await failed(call())
      expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 404, serverCode: "ROUTE_NOT_FOUND" })
      expect(error.message).toContain("ROUTE_NOT_FOUND")
    }
  })

  it("a known code where the method does not document it keeps serverCode", async () => {
    server.handle(replyError(401, "UNAUTHORIZED"))
    const error = await failed(client().subjects.get(subjectId))
    expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", serverCode: "UNAUTHORIZED", status: 401 })
  })

  it("a success body missing the documented shape", async () => {
    server.handle(reply(200, { ...statusBody, timestamp: undefined }))
    const error = await failed(client().status())
    expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 200, retryable: false })
    expect(error.message).toMatch(/timestamp/)
    server.handle(reply(200, "not json at all"))
    expect((await failed(client().subjects.get(subjectId))).code).toBe("UNEXPECTED_RESPONSE")
  })

  it("consents.check: a response missing a requested type, or holding non-boolean flags", async () => {
    server.handle(reply(200, checkBody))
    const missing = await failed(client().consents.check({ externalId: "u", types: ["privacy_policy", "dpa"] }))
    expect(missing.code).toBe("UNEXPECTED_RESPONSE")
    expect(missing.message).toMatch(/dpa/)
    server.handle(reply(200, { results: { dpa: { hasConsent: "yes", isLatestPolicy: false } } }))
    expect((await failed(client().consents.check({ externalId: "u", types: ["dpa"] }))).code).toBe(
      "UNEXPECTED_RESPONSE"
    )
  })

  it("manifest: missing required fields, an unsupported schema version or branding value", async () => {
    for (const body of [
      { ...manifestBody, revision: undefined },
      { ...manifestBody, schemaVersion: 2 },
      { ...manifestBody, branding: "acme" }
    ]) {
      server.queue(reply(200, body))
      expect((await failed(client().manifest())).code).toBe("UNEXPECTED_RESPONSE")
    }
  })

  it("a body on an undocumented success status", async () => {
    server.handle(reply(201, subjectViewBody))
    expect((await failed(client().subjects.get(subjectId))).code).toBe("UNEXPECTED_RESPONSE")
  })
})

describe("SvcError", () => {
  it("toJSON returns a plain object with the fields that apply", async () => {
    server.handle(replyError(404, "ROUTE_NOT_FOUND"))
    const error = await failed(client().status({ requestId: "r-1" }))
    const json = error.toJSON()
    expect(Object.getPrototypeOf(json)).toBe(Object.prototype)
    expect(json).toEqual({
      name: "SvcError",
      code: "UNEXPECTED_RESPONSE",
      message: error.message,
      status: 404,
      requestId: "r-1",
      retryable: false,
      serverCode: "ROUTE_NOT_FOUND"
    })
    expect(JSON.parse(JSON.stringify(error))).toEqual(json)
    const invalid = await failed(client().subjects.get("nope"))
    expect(invalid.toJSON()).toEqual({
      name: "SvcError",
      code: "INVALID_INPUT",
      message: invalid.message,
      retryable: false,
      issues: [{ path: ["id"], message: expect.any(String) }]
    })
  })

  it("isSvcError narrows by code; unwrap returns data or throws the error", async () => {
    server.handle(replyError(404, "NOT_FOUND"))
    const result = await client().subjects.get(subjectId)
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(isSvcError(result.error)).toBe(true)
      expect(isSvcError(result.error, "NOT_FOUND")).toBe(true)
      expect(isSvcError(result.error, "TIMEOUT", "DATABASE_ERROR")).toBe(false)
    }
    expect(isSvcError(new Error("x"))).toBe(false)
    expect(isSvcError({ code: "NOT_FOUND" })).toBe(false)
    await expect(unwrap(client().subjects.get(subjectId))).rejects.toMatchObject({ code: "NOT_FOUND" })
    expect(() => unwrap(result)).toThrow(SvcError)
    server.handle(reply(200, subjectViewBody))
    expect(unwrap(await client().subjects.get(subjectId)).isValid).toBe(true)
    expect((await unwrap(client().subjects.get(subjectId))).isValid).toBe(true)
  })
})
