import { describe, expect, it } from "vitest"
import { isSvcError, SvcError, unwrap } from "../src/index.js"
import { createMockSvcClient, err, ok } from "../src/testing.js"

/** What a user's own code might look like: it takes the client as a dependency. */
const canEmail = async (client: ReturnType<typeof createMockSvcClient>, userId: string) => {
  const result = await client.consents.check({ externalId: userId, types: ["privacy_policy"] })
  return result.ok && result.data.results.privacy_policy.hasConsent
}

describe("@svc/client/testing", () => {
  it("createMockSvcClient calls the handlers with the method's arguments", async () => {
    const calls: Array<unknown> = []
    const client = createMockSvcClient({
      consents: {
        check: (input) => {
          calls.push(input)
          return ok({ results: { privacy_policy: { hasConsent: true, isLatestPolicy: true } } })
        }
      },
      subjects: { get: async (id) => err("NOT_FOUND", { message: `no ${id}` }) },
      status: () =>
        ok(
          {
            status: "ok",
            version: "1",
            timestamp: new Date(0),
            client: { ip: null, userAgent: null, acceptLanguage: null, country: null, region: null }
          } as const
        )
    })
    expect(await canEmail(client, "u1")).toBe(true)
    expect(calls).toEqual([{ externalId: "u1", types: ["privacy_policy"] }])
    const missing = await client.subjects.get("sub_12345678")
    expect(!missing.ok && missing.error).toMatchObject({ code: "NOT_FOUND", message: "no sub_12345678", status: 404 })
    expect(unwrap(await client.status()).version).toBe("1")
  })

  it("ready is mocked like any method: ready, or NOT_READY with the backend's status", async () => {
    const client = createMockSvcClient({ ready: () => err("NOT_READY", { message: "The server is shutting down" }) })
    const result = await client.ready()
    expect(!result.ok && result.error).toMatchObject({ code: "NOT_READY", status: 503, retryable: true })
    const up = createMockSvcClient({ ready: () => ok({ status: "ready" } as const) })
    expect(unwrap(await up.ready())).toEqual({ status: "ready" })
  })

  it("a method without a handler rejects with an error naming it", async () => {
    const client = createMockSvcClient({ subjects: {} })
    await expect(client.subjects.list({ externalId: "u" })).rejects.toThrow(/subjects\.list/)
    await expect(client.manifest()).rejects.toThrow(/manifest/)
    await expect(client.legalDocuments.publish("dpa", { version: "1", hash: "h", effectiveDate: "2026-01-01" }))
      .rejects.toThrow(/legalDocuments\.publish/)
  })

  it("a handler that throws makes the method reject", async () => {
    const client = createMockSvcClient({
      init: () => {
        throw new Error("handler bug")
      }
    })
    await expect(client.init()).rejects.toThrow("handler bug")
  })

  it("ok builds a success with status, requestId and headers", () => {
    expect(ok({ a: 1 })).toEqual({ ok: true, data: { a: 1 }, status: 200, requestId: "mock-request", headers: {} })
    expect(ok(null, { status: 304, requestId: "r", headers: { etag: "x" } })).toEqual({
      ok: true,
      data: null,
      status: 304,
      requestId: "r",
      headers: { etag: "x" }
    })
  })

  it("err builds a failure with an SvcError: message, status, reason, retryable, issues", () => {
    const stale = err("STALE_POLICY", { reason: "policy-changed" })
    expect(stale.ok).toBe(false)
    expect(stale.error).toBeInstanceOf(SvcError)
    expect(stale.error).toMatchObject({ code: "STALE_POLICY", status: 422, reason: "policy-changed", retryable: false })
    expect(isSvcError(stale.error, "STALE_POLICY")).toBe(true)
    expect(err("DATABASE_ERROR").error).toMatchObject({ status: 503, retryable: true })
    expect(err("TIMEOUT").error).toMatchObject({ status: undefined, retryable: true })
    expect(err("NOT_FOUND", { retryable: true, status: 410, message: "gone" }).error).toMatchObject({
      retryable: true,
      status: 410,
      message: "gone"
    })
    const invalid = err("INVALID_INPUT", { issues: [{ path: ["types", 0], message: "must not contain a comma" }] })
    expect(invalid.error.toJSON().issues).toEqual([{ path: ["types", 0], message: "must not contain a comma" }])
  })
})
