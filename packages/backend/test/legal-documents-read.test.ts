import { describe, expect, it } from "vitest"
import { bearer, call, publishRelease } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "legal-read-key-0123456789abcdef-0123"

describe.each(dialects)("GET /legal-documents/:type[/current] [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY] })
  const publish = (type: string, version: string, hash: string, effectiveDate: string) =>
    publishRelease(server, API_KEY, { type, version, hash, effectiveDate })

  it("answers the latest publish as current, without an API key", async () => {
    const v1 = (await publish("privacy_policy", "1", "pp-1", "2026-01-01")).body.policy
    const first = await call(server, "GET", "/legal-documents/privacy_policy/current")
    expect(first.status).toBe(200)
    expect(first.body).toEqual({ policy: v1 })
    // the latest publish is current even with an earlier effective date
    const v0 = (await publish("privacy_policy", "0.9", "pp-0", "2025-06-01")).body.policy
    expect((await call(server, "GET", "/legal-documents/privacy_policy/current")).body).toEqual({ policy: v0 })
  })

  it("lists every release of a type with an API key, the current one first", async () => {
    const a = (await publish("dpa_list", "1", "dl-1", "2026-01-01")).body.policy
    const b = (await publish("dpa_list", "2", "dl-2", "2026-02-01")).body.policy
    await publish("dpa_other", "1", "do-1", "2026-01-01")
    const list = await call(server, "GET", "/legal-documents/dpa_list", undefined, bearer(API_KEY))
    expect(list.status).toBe(200)
    expect(list.body).toEqual({ policies: [b, a] })
    const none = await call(server, "GET", "/legal-documents/dpa_none", undefined, bearer(API_KEY))
    expect(none.body).toEqual({ policies: [] })
  })

  it("answers 404 NOT_FOUND for a type with no release, 400 for a type that is not one", async () => {
    const missing = await call(server, "GET", "/legal-documents/terms_and_conditions_none/current")
    expect(missing.status).toBe(404)
    expect(missing.body.cause).toEqual({ code: "NOT_FOUND" })
    for (const path of ["/legal-documents/cookie_banner/current", "/legal-documents/privacy_policy_EU"]) {
      const bad = await call(server, "GET", path, undefined, bearer(API_KEY))
      expect(bad.status, path).toBe(400)
      expect(bad.body.cause.code).toBe("INVALID_REQUEST")
    }
  })

  it("needs an API key to list, and still to publish", async () => {
    const list = await call(server, "GET", "/legal-documents/dpa_list")
    expect(list.status).toBe(401)
    expect(list.body.cause.code).toBe("UNAUTHORIZED")
    const put = await call(server, "PUT", "/legal-documents/dpa/current", {
      version: "1",
      hash: "x",
      effectiveDate: "2026-01-01"
    })
    expect(put.status).toBe(401)
  })

  it("reads the derived client's current and list", async () => {
    const { Effect } = await import("effect")
    await publish("privacy_policy_client", "7", "pc-7", "2026-03-01")
    const current = await Effect.runPromise(
      Effect.flatMap(server.client, (c) => c.legalDocuments.current({ path: { type: "privacy_policy_client" } }))
    )
    expect(current.policy).toMatchObject({ version: "7", hash: "pc-7" })
    expect(current.policy.effectiveDate).toBeInstanceOf(Date)
    const list = await Effect.runPromise(
      Effect.flatMap(
        server.clientWithKey(API_KEY),
        (c) => c.legalDocuments.list({ path: { type: "privacy_policy_client" } })
      )
    )
    expect(list.policies.map((p) => p.id)).toEqual([current.policy.id])
  })
})
