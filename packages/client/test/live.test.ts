import { type RunningServer, startServer } from "@svc/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createIdentityToken, createSvcClient, type SvcClient, unwrap } from "../src/index.js"

/*
 * Every method against the real backend (`@svc/server`'s startServer on in-memory SQLite),
 * through the same code path users take.
 */

const apiKey = "live-test-key-0123456789abcdef012345"
const signingKey = "live-identity-signing-key-0123456789"
const preferences = {
  necessary: true,
  measurement: true,
  marketing: false,
  functionality: true,
  experience: false
} as const
const newSubjectId = () => `sub_${crypto.randomUUID().replaceAll("-", "")}`

let server: RunningServer
let admin: SvcClient
let browserSide: ReturnType<typeof createSvcClient<{ baseUrl: string }>>

beforeAll(async () => {
  server = await startServer(
    {
      database: { dialect: "sqlite", url: ":memory:" },
      apiKeys: [apiKey],
      identityToken: { signingKey },
      version: "3.0.0-live",
      observability: { requests: "none" },
      manifest: {
        policyRules: [
          { id: "eu", match: { countries: ["DE", "FR"] }, model: "opt-in", categories: ["measurement", "marketing"] },
          { id: "world", match: { default: true }, model: "opt-out", categories: ["measurement"] }
        ]
      }
    },
    { port: 0, host: "127.0.0.1" }
  )
  admin = createSvcClient({ baseUrl: server.url, apiKey, retry: false })
  browserSide = createSvcClient({ baseUrl: server.url, retry: false })
})
afterAll(() => server?.close())

const save = (subjectId: string, extra: Record<string, unknown> = {}) => ({
  type: "cookie_banner",
  domain: "example.com",
  subjectId,
  givenAt: new Date("2026-01-30T09:00:00.000Z"),
  preferences,
  ...extra
})

describe("live: public methods", () => {
  it("status", async () => {
    const result = await admin.status()
    expect(result).toMatchObject({ ok: true, status: 200 })
    const data = unwrap(result)
    expect(data.version).toBe("3.0.0-live")
    expect(data.timestamp).toBeInstanceOf(Date)
    expect(data.client).toBeTypeOf("object")
  })

  it("ready: ready on a migrated database; NOT_READY (503, retryable) on one nobody migrated", async () => {
    expect(unwrap(await browserSide.ready())).toEqual({ status: "ready" })
    const unmigrated = await startServer(
      { database: { dialect: "sqlite", url: ":memory:" }, observability: { requests: "none" } },
      { port: 0, host: "127.0.0.1", migrate: false }
    )
    try {
      const result = await createSvcClient({ baseUrl: unmigrated.url, retry: false }).ready()
      expect(!result.ok && result.error).toMatchObject({ code: "NOT_READY", status: 503, retryable: true })
      expect(!result.ok && result.error.message).toContain("svc migrate")
    } finally {
      await unmigrated.close()
    }
  })

  it("manifest: modified, then not-modified for its etag", async () => {
    const first = unwrap(await browserSide.manifest())
    expect(first.status).toBe("modified")
    if (first.status !== "modified") return
    expect(first.manifest.policyPacks.map((p) => p.id)).toEqual(["eu", "world"])
    expect(first.etag).toBeTruthy()
    const again = unwrap(await browserSide.manifest({ ifNoneMatch: first.etag! }))
    expect(again).toEqual({ status: "not-modified", etag: first.etag })
  })

  it("init: overrides sent as headers decide the rule; gpc is read", async () => {
    const eu = unwrap(await browserSide.init({ country: "DE", language: "de", gpc: true }))
    expect(eu.policyResolution).toMatchObject({ status: "matched", policyId: "eu" })
    expect(eu.gpc).toBe(true)
    const us = unwrap(await browserSide.init({ country: "US", region: "CA" }))
    expect(us.policyResolution.policyId).toBe("world")
  })

  it("subjects.create records a consent; the same consent again returns the existing record", async () => {
    const subjectId = newSubjectId()
    const first = unwrap(await browserSide.subjects.create(save(subjectId)))
    expect(first).toMatchObject({ subjectId })
    expect(first.consentId).toMatch(/^cns_/)
    expect(first.givenAt).toEqual(new Date("2026-01-30T09:00:00.000Z"))
    const again = unwrap(await browserSide.subjects.create(save(subjectId)))
    expect(again.consentId).toBe(first.consentId)
  })

  it("subjects.get: consents, isValid and subjectChoice; types filters records, not subjectChoice", async () => {
    const subjectId = newSubjectId()
    unwrap(await browserSide.subjects.create(save(subjectId)))
    const all = unwrap(await browserSide.subjects.get(subjectId))
    expect(all.subject.id).toBe(subjectId)
    expect(all.consents).toHaveLength(1)
    expect(all.subjectChoice?.categories.measurement?.value).toBe(true)
    expect(all.subjectChoice?.categories.measurement?.confirmedAt).toBeInstanceOf(Date)
    const filtered = unwrap(await browserSide.subjects.get(subjectId, { types: ["privacy_policy"] }))
    expect(filtered.consents).toHaveLength(0)
    expect(filtered.subjectChoice).toEqual(all.subjectChoice)
    const missing = await browserSide.subjects.get(newSubjectId())
    expect(!missing.ok && missing.error).toMatchObject({ code: "NOT_FOUND", status: 404 })
  })
})

describe("live: identity links and key-only methods", () => {
  it("identify with the key verifies; consents.check and subjects.list then see the subject", async () => {
    const subjectId = newSubjectId()
    const externalId = `user-${crypto.randomUUID()}`
    unwrap(await browserSide.subjects.create(save(subjectId)))
    const linked = unwrap(await admin.subjects.identify(subjectId, { externalId }))
    expect(linked.subject).toMatchObject({ id: subjectId, externalId, identityProvider: "external" })
    const check = unwrap(await admin.consents.check({ externalId, types: ["cookie_banner", "privacy_policy"] }))
    expect(check.results.cookie_banner).toEqual({ hasConsent: true, isLatestPolicy: expect.any(Boolean) })
    expect(check.results.privacy_policy).toEqual({ hasConsent: false, isLatestPolicy: false })
    const list = unwrap(await admin.subjects.list({ externalId }))
    expect(list.subjects.map((s) => s.id)).toEqual([subjectId])
    expect(list.subjects[0]!.consents[0]).toMatchObject({ type: "cookie_banner" })
    expect(list.subjects[0]!.createdAt).toBeInstanceOf(Date)
  })

  it("an unverified link cannot replace a verified one (IDENTITY_CONFLICT); unknown subject is NOT_FOUND", async () => {
    const subjectId = newSubjectId()
    unwrap(await browserSide.subjects.create(save(subjectId)))
    unwrap(await admin.subjects.identify(subjectId, { externalId: "owner" }))
    const takeover = await browserSide.subjects.identify(subjectId, { externalId: "attacker" })
    expect(!takeover.ok && takeover.error).toMatchObject({ code: "IDENTITY_CONFLICT", status: 409 })
    const same = await browserSide.subjects.identify(subjectId, { externalId: "owner" })
    expect(same.ok).toBe(true)
    const unknown = await admin.subjects.identify(newSubjectId(), { externalId: "u" })
    expect(!unknown.ok && unknown.error.code).toBe("NOT_FOUND")
  })

  it("an identity token verifies a link without a key; a bad token is IDENTITY_TOKEN_INVALID", async () => {
    const subjectId = newSubjectId()
    const externalId = `user-${crypto.randomUUID()}`
    unwrap(await browserSide.subjects.create(save(subjectId)))
    const bad = await browserSide.subjects.identify(subjectId, {
      externalId,
      identityToken: await createIdentityToken({ externalId: "someone-else" }, { signingKey })
    })
    expect(!bad.ok && bad.error).toMatchObject({ code: "IDENTITY_TOKEN_INVALID", status: 401 })
    const identityToken = await createIdentityToken({ externalId, identityProvider: "auth0" }, { signingKey })
    const good = unwrap(
      await browserSide.subjects.identify(subjectId, { externalId, identityProvider: "auth0", identityToken })
    )
    expect(good.subject).toMatchObject({ externalId, identityProvider: "auth0" })
    const list = unwrap(await admin.subjects.list({ externalId }))
    expect(list.subjects.map((s) => s.id)).toEqual([subjectId])
  })

  it("legalDocuments.publish: a release, a no-op republish, CONFLICT for the same hash with another version", async () => {
    const body = { version: "2026-02", hash: `sha256-${crypto.randomUUID()}`, effectiveDate: "2026-02-01" }
    const first = unwrap(await admin.legalDocuments.publish("privacy_policy_live", body))
    expect(first.policy).toMatchObject({ type: "privacy_policy_live", version: "2026-02" })
    expect(first.policy.id).toMatch(/^pol_/)
    const again = unwrap(
      await admin.legalDocuments.publish("privacy_policy_live", { ...body, effectiveDate: new Date("2026-02-01") })
    )
    expect(again.policy.id).toBe(first.policy.id)
    const conflict = await admin.legalDocuments.publish("privacy_policy_live", { ...body, version: "2026-03" })
    expect(!conflict.ok && conflict.error).toMatchObject({ code: "CONFLICT", status: 409 })
  })

  it("experiments.summary: choices per arm", async () => {
    const experiment = `exp-${crypto.randomUUID().slice(0, 8)}`
    for (const [arm, action] of [["a", "accept_all"], ["a", "reject_all"], ["b", "accept_all"]] as const) {
      unwrap(await browserSide.subjects.create(save(newSubjectId(), { experiment: { id: experiment, arm }, action })))
    }
    const summary = unwrap(await admin.experiments.summary(experiment, { from: "2026-01-30", to: "2026-01-30" }))
    const arms = Object.fromEntries(summary.arms.map((a) => [a.arm, a]))
    expect(arms["a"]).toMatchObject({ choices: 2, byAction: { accept_all: 1, reject_all: 1 } })
    expect(arms["b"]).toMatchObject({ choices: 1 })
    expect(summary.from).toBeTypeOf("string")
  })

  it("a wrong key is UNAUTHORIZED; a client without a key gets MISSING_API_KEY and sends nothing", async () => {
    const wrong = createSvcClient({ baseUrl: server.url, apiKey: "not-a-key" })
    const result = await wrong.subjects.list({ externalId: "u" })
    expect(!result.ok && result.error).toMatchObject({ code: "UNAUTHORIZED", status: 401, retryable: false })
    const keyless = browserSide as unknown as SvcClient
    const missing = await keyless.consents.check({ externalId: "u", types: ["cookie_banner"] })
    expect(!missing.ok && missing.error.code).toBe("MISSING_API_KEY")
  })

  it("an unknown route is UNEXPECTED_RESPONSE with serverCode ROUTE_NOT_FOUND", async () => {
    const misplaced = createSvcClient({ baseUrl: `${server.url}/wrong-mount`, retry: false })
    const result = await misplaced.status()
    expect(!result.ok && result.error).toMatchObject({
      code: "UNEXPECTED_RESPONSE",
      status: 404,
      serverCode: "ROUTE_NOT_FOUND"
    })
  })
})
