import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createSvcClient, type SvcClient, type SvcResult } from "../src/index.js"
import { subjectId } from "./support/fixtures.js"
import { type FakeServer, reply, startFakeServer } from "./support/fake-server.js"

let server: FakeServer
beforeAll(async () => {
  server = await startFakeServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  server.handle(reply(500, {}))
})

const keyed = () => createSvcClient({ baseUrl: server.origin, apiKey: "key-1", retry: false }) as SvcClient
const anyClient = () => keyed() as unknown as Record<string, any>

/** The failure's issues as `path: message`, and that nothing was sent. */
const invalid = async (call: Promise<SvcResult<unknown>>) => {
  const result = await call
  expect(result.ok).toBe(false)
  if (result.ok) throw new Error("expected a failure")
  expect(result.error.code).toBe("INVALID_INPUT")
  expect(result.error.requestId).toBeUndefined()
  expect(result.error.status).toBeUndefined()
  expect(result.error.retryable).toBe(false)
  expect(server.requests).toHaveLength(0)
  return result.error.issues!.map((issue) => issue.path.join("."))
}

const save = { type: "privacy_policy", domain: "example.com", subjectId, givenAt: 1_700_000_000_000 }

describe("key-only methods without a key", () => {
  it("return MISSING_API_KEY and send nothing", async () => {
    const client = createSvcClient({ baseUrl: server.origin }) as unknown as SvcClient
    const results = await Promise.all([
      client.consents.check({ externalId: "u", types: ["privacy_policy"] }),
      client.subjects.list({ externalId: "u" }),
      client.experiments.summary("exp-1"),
      client.legalDocuments.publish("dpa", { version: "1", hash: "h", effectiveDate: "2026-01-01" })
    ])
    for (const result of results) {
      expect(result.ok).toBe(false)
      if (!result.ok) {
        expect(result.error.code).toBe("MISSING_API_KEY")
        expect(result.error.requestId).toBeUndefined()
        expect(result.error.retryable).toBe(false)
      }
    }
    expect(server.requests).toHaveLength(0)
  })
})

describe("input validation before sending (INVALID_INPUT with issues and paths)", () => {
  it("consents.check: types must be a non-empty array; a type with a comma is refused", async () => {
    expect(await invalid(keyed().consents.check({ externalId: "u", types: [] }))).toEqual(["types"])
    expect(await invalid(keyed().consents.check({ externalId: "u", types: ["privacy_policy,dpa"] }))).toEqual([
      "types.0"
    ])
    expect(await invalid(anyClient().consents.check({ externalId: "u", types: ["ok", "", 3] }))).toEqual(["types.1",
      "types.2"])
    expect(await invalid(anyClient().consents.check({ externalId: "", types: "dpa" }))).toEqual(["externalId", "types"])
    expect(await invalid(anyClient().consents.check({ externalId: " padded ", types: ["dpa"] }))).toEqual([
      "externalId"
    ])
    expect(await invalid(anyClient().consents.check(null))).toEqual([""])
  })

  it("subjects.get and identify: the subject id must use the sub_ format", async () => {
    expect(await invalid(keyed().subjects.get("user-1"))).toEqual(["id"])
    expect(await invalid(anyClient().subjects.get(42))).toEqual(["id"])
    expect(await invalid(keyed().subjects.get(subjectId, { types: ["a,b"] }))).toEqual(["types.0"])
    expect(await invalid(keyed().subjects.identify("sub_x", { externalId: "" }))).toEqual(["id", "externalId"])
    expect(await invalid(anyClient().subjects.identify(subjectId, { externalId: "u", identityProvider: "" })))
      .toEqual(["identityProvider"])
  })

  it("subjects.create: the contract's body rules (sub_ id, cookie_banner preferences, givenAt Date or ms)", async () => {
    expect(await invalid(keyed().subjects.create({ ...save, subjectId: "abc" }))).toEqual(["subjectId"])
    expect(await invalid(keyed().subjects.create({ ...save, type: "cookie_banner" }))).toEqual(["preferences"])
    expect(await invalid(anyClient().subjects.create({ ...save, givenAt: "2026-01-01" }))).toEqual(["givenAt"])
    expect(await invalid(keyed().subjects.create({ ...save, givenAt: new Date("nope") }))).toEqual(["givenAt"])
    expect(await invalid(keyed().subjects.create({ ...save, givenAt: -1 }))).toEqual(["givenAt"])
    expect(await invalid(anyClient().subjects.create({ ...save, type: "newsletter" }))).toEqual(["type"])
    expect(await invalid(anyClient().subjects.create({ ...save, givenAt: undefined, domain: "" }))).toEqual(["givenAt",
      "domain"])
    expect(
      await invalid(
        anyClient().subjects.create({
          ...save,
          receipts: { measurement: { value: true, confirmedAt: "yesterday" } }
        })
      )
    ).toEqual(["receipts.measurement.confirmedAt"])
  })

  it("bodies JSON cannot represent (bigint, circular reference) are refused before sending", async () => {
    expect(await invalid(anyClient().subjects.create({ ...save, extra: { count: 10n } }))).toEqual(["extra.count"])
    const cyclic: Record<string, unknown> = { ...save }
    cyclic["self"] = cyclic
    expect(await invalid(anyClient().subjects.create(cyclic))).toEqual(["self"])
    const loop: Record<string, unknown> = { externalId: "u" }
    loop["meta"] = [loop]
    expect(await invalid(anyClient().subjects.identify(subjectId, loop))).toEqual(["meta.0"])
    expect(
      await invalid(anyClient().legalDocuments.publish("dpa", { version: 1n, hash: "h", effectiveDate: "2026-01-01" }))
    )
      .toEqual(["version"])
  })

  it("legalDocuments.publish: type pattern; effectiveDate a Date or ISO string; impossible dates refused", async () => {
    const body = { version: "v1", hash: "h", effectiveDate: "2026-01-01" }
    expect(await invalid(keyed().legalDocuments.publish("cookie_banner", body))).toEqual(["type"])
    expect(await invalid(keyed().legalDocuments.publish("privacy_policy_EU", body))).toEqual(["type"])
    expect(await invalid(keyed().legalDocuments.publish("dpa", { ...body, effectiveDate: "2025-02-30" }))).toEqual([
      "effectiveDate"
    ])
    expect(await invalid(keyed().legalDocuments.publish("dpa", { ...body, effectiveDate: "2025-02-29" }))).toEqual([
      "effectiveDate"
    ])
    expect(await invalid(keyed().legalDocuments.publish("dpa", { ...body, effectiveDate: "31/01/2026" }))).toEqual([
      "effectiveDate"
    ])
    expect(await invalid(anyClient().legalDocuments.publish("dpa", { ...body, effectiveDate: 1_700_000_000_000 })))
      .toEqual(["effectiveDate"])
    expect(await invalid(keyed().legalDocuments.publish("dpa", { version: "", hash: "", effectiveDate: "2026-13-01" })))
      .toEqual(["effectiveDate", "version", "hash"])
  })

  it("experiments.summary: from/to must be valid dates; id 1..128 characters", async () => {
    expect(await invalid(keyed().experiments.summary("exp", { from: "2026-02-30" }))).toEqual(["from"])
    expect(await invalid(keyed().experiments.summary("exp", { to: new Date(Number.NaN) }))).toEqual(["to"])
    expect(await invalid(keyed().experiments.summary("", {}))).toEqual(["id"])
    expect(await invalid(keyed().experiments.summary("x".repeat(129)))).toEqual(["id"])
    expect(await invalid(keyed().experiments.summary("é".repeat(100)))).toEqual(["id"])
    expect(await invalid(keyed().experiments.summary("exp", { domain: "" }))).toEqual(["domain"])
  })

  it("init and manifest: header-safe overrides, country and region codes, boolean gpc, language code", async () => {
    expect(await invalid(keyed().init({ country: "Germany" }))).toEqual(["country"])
    expect(await invalid(keyed().init({ region: "US-California" }))).toEqual(["region"])
    expect(await invalid(keyed().init({ language: "en\r\nx-evil: 1" }))).toEqual(["language"])
    expect(await invalid(anyClient().init({ gpc: "1" }))).toEqual(["gpc"])
    expect(await invalid(keyed().manifest({ language: "English" }))).toEqual(["language"])
    expect(await invalid(keyed().manifest({ ifNoneMatch: "" }))).toEqual(["ifNoneMatch"])
  })

  it("invalid call options return INVALID_INPUT and send nothing", async () => {
    expect(await invalid(keyed().status({ timeoutMs: 0 }))).toEqual(["options.timeoutMs"])
    expect(await invalid(keyed().status({ timeoutMs: 2_147_483_648 }))).toEqual(["options.timeoutMs"])
    expect(await invalid(anyClient().status({ signal: {} }))).toEqual(["options.signal"])
    expect(await invalid(keyed().status({ retry: { maxRetries: 11 } }))).toEqual(["options.retry.maxRetries"])
    expect(await invalid(keyed().status({ headers: { "x-a": "1\n2" } }))).toEqual(["options.headers.x-a"])
    expect(await invalid(keyed().status({ requestId: "" }))).toEqual(["options.requestId"])
    expect(await invalid(anyClient().status({ timeout: 5 }))).toEqual(["options.timeout"])
    expect(await invalid(anyClient().status("fast"))).toEqual(["options"])
    expect(await invalid(keyed().subjects.get(subjectId, undefined, { timeoutMs: -5 }))).toEqual(["options.timeoutMs"])
  })

  it("issue messages never repeat the value, which may be a token", async () => {
    const token = "secret-identity-token-" + "x".repeat(5000)
    const result = await keyed().subjects.identify(subjectId, { externalId: "u", identityToken: token })
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.error.issues?.[0]?.path).toEqual(["identityToken"])
      expect(JSON.stringify(result.error.toJSON())).not.toContain("secret-identity-token")
      expect(result.error.message).not.toContain("secret-identity-token")
    }
  })

  it("inputs that throw when read still resolve to INVALID_INPUT", async () => {
    const input = Object.defineProperty({}, "externalId", {
      enumerable: true,
      get: () => {
        throw new Error("boom")
      }
    })
    expect(await invalid(anyClient().subjects.list(input))).toEqual([""])
  })
})

describe("methods never reject", () => {
  it("any arguments at all resolve to a result", async () => {
    const client = anyClient()
    const garbage = [undefined, null, 0, "", "x", [], {}, Symbol("s"), () => 1, 10n, new Date(Number.NaN)]
    const methods: Array<(...args: Array<unknown>) => Promise<unknown>> = [
      client.status,
      client.init,
      client.manifest,
      client.consents.check,
      client.subjects.identify,
      client.subjects.get,
      client.subjects.create,
      client.subjects.list,
      client.legalDocuments.publish,
      client.experiments.summary
    ]
    for (const method of methods) {
      for (const a of garbage) {
        for (const b of [undefined, null, 1, { timeoutMs: "x" }]) {
          const result = (await method(a, b, b)) as { ok: boolean }
          expect(typeof result.ok).toBe("boolean")
        }
      }
    }
  })
})
