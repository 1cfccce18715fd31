import { type RunningServer, startServer } from "@svc/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvcClient, type SvcClient, unwrap } from "../src/index.js"
import { createMockSvcClient, err, ok } from "../src/testing.js"

/*
 * The record, erasure and legal-document read methods against the real backend (in-memory
 * SQLite), and their mock.
 */

const apiKey = "data-rights-test-key"

let server: RunningServer
let admin: SvcClient

beforeAll(async () => {
  server = await startServer(
    { database: { dialect: "sqlite", url: ":memory:" }, apiKeys: [apiKey], observability: { requests: "none" } },
    { port: 0, host: "127.0.0.1" }
  )
  admin = createSvcClient({ baseUrl: server.url, apiKey, retry: false })
})
afterAll(() => server?.close())

describe("live: legal documents", () => {
  it("legalDocuments.current and list read back what was published", async () => {
    const missing = await admin.legalDocuments.current("privacy_policy_read")
    expect(!missing.ok && missing.error).toMatchObject({ code: "NOT_FOUND", status: 404 })
    const v1 = unwrap(await admin.legalDocuments.publish("privacy_policy_read", { version: "1", hash: "r-1", effectiveDate: "2026-01-01" }))
    const v2 = unwrap(await admin.legalDocuments.publish("privacy_policy_read", { version: "2", hash: "r-2", effectiveDate: "2026-02-01" }))
    const publicClient = createSvcClient({ baseUrl: server.url, retry: false })
    const current = unwrap(await (publicClient as unknown as SvcClient).legalDocuments.current("privacy_policy_read"))
    expect(current.policy).toEqual(v2.policy)
    const list = unwrap(await admin.legalDocuments.list("privacy_policy_read"))
    expect(list.policies.map((p) => p.version)).toEqual(["2", "1"])
    expect(list.policies[1]).toEqual(v1.policy)
  })

  it("refuses a type that is not one before sending, and list without a key", async () => {
    const bad = await admin.legalDocuments.current("cookie_banner")
    expect(!bad.ok && bad.error.code).toBe("INVALID_INPUT")
    const keyless = createSvcClient({ baseUrl: server.url, retry: false }) as unknown as SvcClient
    const noKey = await keyless.legalDocuments.list("dpa")
    expect(!noKey.ok && noKey.error.code).toBe("MISSING_API_KEY")
  })
})

describe("mock: data-subject methods", () => {
  it("calls the handlers of legalDocuments.current and list", async () => {
    const policy = { id: "pol_1", type: "dpa", version: "1", hash: "h", effectiveDate: new Date(0), createdAt: new Date(0) }
    const client = createMockSvcClient({
      legalDocuments: { current: (type) => type === "dpa" ? ok({ policy }) : err("NOT_FOUND"), list: () => ok({ policies: [policy] }) }
    })
    expect(unwrap(await client.legalDocuments.current("dpa")).policy.id).toBe("pol_1")
    expect((await client.legalDocuments.current("privacy_policy")).ok).toBe(false)
    expect(unwrap(await client.legalDocuments.list("dpa")).policies).toHaveLength(1)
  })
})
