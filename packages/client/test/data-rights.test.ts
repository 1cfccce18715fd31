import { type RunningServer, startServer } from "@svc/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvcClient, type SvcClient, unwrap } from "../src/index.js"
import { createMockSvcClient, err, ok } from "../src/testing.js"

/*
 * The record, erasure and legal-document read methods against the real backend (in-memory
 * SQLite), and their mock.
 */

const apiKey = "data-rights-test-key-0123456789abcde"

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
    const v1 = unwrap(
      await admin.legalDocuments.publish("privacy_policy_read", {
        version: "1",
        hash: "r-1",
        effectiveDate: "2026-01-01"
      })
    )
    const v2 = unwrap(
      await admin.legalDocuments.publish("privacy_policy_read", {
        version: "2",
        hash: "r-2",
        effectiveDate: "2026-02-01"
      })
    )
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

const newSubjectId = () => `sub_${crypto.randomUUID().replaceAll("-", "")}`
const cookieSave = (subjectId: string, extra: Record<string, unknown> = {}) => ({
  type: "cookie_banner",
  domain: "example.com",
  subjectId,
  givenAt: new Date("2026-01-30T09:00:00.000Z"),
  preferences: { necessary: true, measurement: true, marketing: false },
  ...extra
})

describe("live: subjects.export", () => {
  it("exports one subject by id, and a user's subjects by externalId", async () => {
    const subjectId = newSubjectId()
    unwrap(await admin.subjects.create(cookieSave(subjectId, { externalSubjectId: "client-export-user" })))
    const one = unwrap(await admin.subjects.export(subjectId))
    expect(one.exportedAt).toBeInstanceOf(Date)
    expect(one.subjects[0]?.records[0]).toMatchObject({
      principal: { subjectId },
      legalBasis: "consent",
      policyType: "cookie_banner"
    })
    expect(one.subjects[0]?.records[0]?.givenAt).toEqual(new Date("2026-01-30T09:00:00.000Z"))
    const byUser = unwrap(await admin.subjects.export({ externalId: "client-export-user" }))
    expect(byUser.subjects.map((s) => s.subjectId)).toEqual([subjectId])
  })

  it("NOT_FOUND for an unknown subject; INVALID_INPUT before sending for a malformed target", async () => {
    const missing = await admin.subjects.export(newSubjectId())
    expect(!missing.ok && missing.error).toMatchObject({ code: "NOT_FOUND", status: 404 })
    for (const target of ["nope", { externalId: "" }, 42 as never]) {
      const bad = await admin.subjects.export(target)
      expect(!bad.ok && bad.error.code).toBe("INVALID_INPUT")
    }
  })
})

describe("live: subjects.erase", () => {
  it("erases by id and by externalId, idempotently", async () => {
    const subjectId = newSubjectId()
    unwrap(await admin.subjects.create(cookieSave(subjectId, { externalSubjectId: "client-erase-user" })))
    const first = unwrap(await admin.subjects.erase(subjectId))
    expect(first).toEqual({ erasedAt: expect.any(Date), subjects: 1, recordsKeptAsAnonymousProof: 1 })
    const gone = await admin.subjects.get(subjectId)
    expect(!gone.ok && gone.error.code).toBe("NOT_FOUND")
    expect(unwrap(await admin.subjects.erase(subjectId))).toMatchObject({ subjects: 0, recordsKeptAsAnonymousProof: 0 })
    const other = newSubjectId()
    unwrap(await admin.subjects.create(cookieSave(other, { externalSubjectId: "client-erase-user-2" })))
    expect(unwrap(await admin.subjects.erase({ externalId: "client-erase-user-2" }))).toMatchObject({ subjects: 1 })
    const bad = await admin.subjects.erase("nope")
    expect(!bad.ok && bad.error.code).toBe("INVALID_INPUT")
  })
})

describe("live: consents.export", () => {
  it("iterates the period's records as they stream, and yields one failure for a bad period", async () => {
    const ids = [newSubjectId(), newSubjectId(), newSubjectId()]
    for (const [i, id] of ids.entries()) {
      unwrap(await admin.subjects.create(cookieSave(id, { givenAt: new Date(Date.UTC(2025, 5, 1, 10, 0, i)) })))
    }
    const seen: Array<string> = []
    for await (const item of admin.consents.export({ from: "2025-06-01", to: new Date(Date.UTC(2025, 5, 1, 23)) })) {
      expect(item.ok).toBe(true)
      if (item.ok) {
        expect(item.data.givenAt).toBeInstanceOf(Date)
        seen.push(item.data.principal.subjectId)
      }
    }
    expect(seen).toEqual(ids)
    const bad: Array<unknown> = []
    for await (const item of admin.consents.export({ from: "2025-06-02", to: "2025-06-01" })) bad.push(item)
    expect(bad).toHaveLength(1)
    expect(bad[0]).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST", status: 400 } })
    const invalid: Array<unknown> = []
    for await (const item of admin.consents.export({ from: "soon" as never, to: 5 as never })) invalid.push(item)
    expect(invalid).toMatchObject([{ ok: false, error: { code: "INVALID_INPUT" } }])
    const keyless = createSvcClient({ baseUrl: server.url, retry: false }) as unknown as SvcClient
    const missing: Array<unknown> = []
    for await (const item of keyless.consents.export({ from: "2025-06-01", to: "2025-06-01" })) missing.push(item)
    expect(missing).toMatchObject([{ ok: false, error: { code: "MISSING_API_KEY" } }])
  })

  it("yields NETWORK_ERROR, never throws, when the server cannot be reached", async () => {
    const dead = createSvcClient({ baseUrl: "http://127.0.0.1:9", apiKey, retry: false })
    const items: Array<unknown> = []
    for await (const item of dead.consents.export({ from: "2025-06-01", to: "2025-06-01" })) items.push(item)
    expect(items).toMatchObject([{ ok: false, error: { code: "NETWORK_ERROR" } }])
  })
})

describe("mock: data-subject methods", () => {
  it("calls the handlers of legalDocuments.current and list", async () => {
    const policy = {
      id: "pol_1",
      type: "dpa",
      version: "1",
      hash: "h",
      effectiveDate: new Date(0),
      createdAt: new Date(0)
    }
    const client = createMockSvcClient({
      legalDocuments: {
        current: (type) => type === "dpa" ? ok({ policy }) : err("NOT_FOUND"),
        list: () => ok({ policies: [policy] })
      }
    })
    expect(unwrap(await client.legalDocuments.current("dpa")).policy.id).toBe("pol_1")
    expect((await client.legalDocuments.current("privacy_policy")).ok).toBe(false)
    expect(unwrap(await client.legalDocuments.list("dpa")).policies).toHaveLength(1)
  })

  it("calls the handler of subjects.export", async () => {
    const client = createMockSvcClient({
      subjects: { export: () => ok({ exportedAt: new Date(0), subjects: [] }) }
    })
    expect(unwrap(await client.subjects.export("sub_12345678")).subjects).toEqual([])
    await expect(createMockSvcClient().subjects.export("sub_12345678")).rejects.toThrow(/subjects\.export/)
  })

  it("consents.export iterates the handler's items; without one, iterating rejects naming it", async () => {
    const record = { recordId: "cns_1" } as never
    const client = createMockSvcClient({ consents: { export: () => [ok(record), ok(record)] } })
    const items: Array<unknown> = []
    for await (const item of client.consents.export({ from: "2025-01-01", to: "2025-01-02" })) items.push(item)
    expect(items).toHaveLength(2)
    const none = createMockSvcClient().consents.export({ from: "2025-01-01", to: "2025-01-02" })
    await expect((async () => {
      for await (const _ of none) void _
    })()).rejects.toThrow(/consents\.export/)
  })

  it("passes the proofs option of both exports to their handlers", async () => {
    const seen: Array<unknown> = []
    const client = createMockSvcClient({
      subjects: {
        export: (target, input) => (seen.push([target, input]), ok({ exportedAt: new Date(0), subjects: [] }))
      },
      consents: { export: (input) => (seen.push(input.proofs), [ok({ recordId: "cns_1", logProof: null } as never)]) }
    })
    unwrap(await client.subjects.export({ externalId: "u" }, { proofs: true }))
    const items: Array<unknown> = []
    for await (const item of client.consents.export({ from: "2025-01-01", to: "2025-01-02", proofs: true })) {
      items.push(unwrap(item))
    }
    expect(seen).toEqual([[{ externalId: "u" }, { proofs: true }], true])
    expect(items).toEqual([{ recordId: "cns_1", logProof: null }])
  })

  it("calls the handler of subjects.erase", async () => {
    const client = createMockSvcClient({
      subjects: { erase: () => ok({ erasedAt: new Date(0), subjects: 1, recordsKeptAsAnonymousProof: 2 }) }
    })
    expect(unwrap(await client.subjects.erase({ externalId: "u" })).recordsKeptAsAnonymousProof).toBe(2)
  })
})
