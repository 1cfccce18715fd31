import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createSvcClient, unwrap } from "../src/index.js"
import {
  checkBody,
  initBody,
  linkBody,
  listBody,
  manifestBody,
  publishBody,
  saveBody,
  statusBody,
  subjectId,
  subjectViewBody,
  summaryBody
} from "./support/fixtures.js"
import { type FakeServer, reply, startFakeServer } from "./support/fake-server.js"

let server: FakeServer
beforeAll(async () => {
  server = await startFakeServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const keyed = () => createSvcClient({ baseUrl: server.origin, apiKey: "key-1", retry: false })
const last = () => {
  const request = server.requests.at(-1)!
  const url = new URL(request.url, server.origin)
  return { ...request, path: url.pathname, query: Object.fromEntries(url.searchParams) }
}

describe("methods: requests sent and data returned", () => {
  it("status: version, timestamp as a Date, client; with status, requestId and headers", async () => {
    server.handle(reply(200, statusBody, { "x-served-by": "fake" }))
    const result = await keyed().status({ requestId: "r-status" })
    expect(result).toMatchObject({ ok: true, status: 200, requestId: "r-status" })
    if (!result.ok) throw result.error
    expect(result.data.version).toBe("3.0.0-test")
    expect(result.data.timestamp).toEqual(new Date("2026-01-31T10:00:00.000Z"))
    expect(result.data.client.ip).toBe("127.0.0.1")
    expect(result.headers["x-served-by"]).toBe("fake")
    expect(last()).toMatchObject({ method: "GET", path: "/status" })
  })

  it("consents.check: one comma-joined type query value; results keyed by type", async () => {
    server.handle(reply(200, checkBody))
    const data = await unwrap(
      keyed().consents.check({ externalId: "user 1", types: ["privacy_policy", "cookie_banner"] })
    )
    expect(data.results.privacy_policy).toEqual({ hasConsent: true, isLatestPolicy: false })
    expect(data.results.cookie_banner.hasConsent).toBe(false)
    expect(last()).toMatchObject({
      method: "GET",
      path: "/consents/check",
      query: { externalId: "user 1", type: "privacy_policy,cookie_banner" }
    })
  })

  it("subjects.identify: PATCH with externalId, identityProvider and identityToken", async () => {
    server.handle(reply(200, linkBody))
    const data = await unwrap(
      keyed().subjects.identify(subjectId, { externalId: "user-1", identityProvider: "auth0", identityToken: "t.k.n" })
    )
    expect(data.subject).toMatchObject({ id: subjectId, externalId: "user-1", identityProvider: "external" })
    expect(last()).toMatchObject({ method: "PATCH", path: `/subjects/${subjectId}` })
    expect(JSON.parse(last().body)).toEqual({ externalId: "user-1", identityProvider: "auth0", identityToken: "t.k.n" })
    expect(last().headers["content-type"]).toMatch(/application\/json/)
  })

  it("subjects.identify: identityProvider is optional and never sent as undefined", async () => {
    server.handle(reply(200, linkBody))
    await unwrap(keyed().subjects.identify(subjectId, { externalId: "user-1", identityProvider: undefined }))
    expect(JSON.parse(last().body)).toEqual({ externalId: "user-1" })
  })

  it("subjects.get: types as one type query value; dates decoded; subjectChoice categories", async () => {
    server.handle(reply(200, subjectViewBody))
    const data = await unwrap(keyed().subjects.get(subjectId, { types: ["cookie_banner", "privacy_policy"] }))
    expect(last()).toMatchObject({ path: `/subjects/${subjectId}`, query: { type: "cookie_banner,privacy_policy" } })
    expect(data.isValid).toBe(true)
    expect(data.consents[0]!.givenAt).toBeInstanceOf(Date)
    expect(data.subject.createdAt).toEqual(new Date("2026-01-30T09:00:01.000Z"))
    expect(data.subjectChoice?.categories.measurement).toEqual({
      value: true,
      confirmedAt: new Date("2026-01-30T09:00:00.000Z")
    })
    await unwrap(keyed().subjects.get(subjectId))
    expect(last().query).toEqual({})
  })

  it("subjects.get: subjectChoice is null when the subject has no usable choice", async () => {
    server.handle(reply(200, { ...subjectViewBody, subjectChoice: null }))
    expect((await unwrap(keyed().subjects.get(subjectId))).subjectChoice).toBeNull()
  })

  it("subjects.create: givenAt as a Date or epoch ms, sent as ISO 8601; other fields pass through", async () => {
    server.handle(reply(200, saveBody))
    const givenAt = new Date("2026-01-30T09:00:00.000Z")
    const data = await unwrap(
      keyed().subjects.create({
        type: "cookie_banner",
        domain: "example.com",
        subjectId,
        givenAt,
        preferences: { necessary: true, measurement: true, marketing: false, functionality: true, experience: false },
        receipts: { measurement: { value: true, confirmedAt: givenAt.getTime() } },
        vendorChoice: { grants: { analytics: true }, confirmedAt: givenAt },
        externalSubjectId: "user-1",
        experiment: { id: "exp-1", arm: "a" },
        action: "custom",
        surface: "banner",
        timeToDecisionMs: 1200
      })
    )
    expect(data).toMatchObject({ subjectId, consentId: "cns_1", givenAt, appliedPreferences: { measurement: true } })
    const body = JSON.parse(last().body)
    expect(last()).toMatchObject({ method: "POST", path: "/subjects" })
    expect(body).toMatchObject({
      type: "cookie_banner",
      domain: "example.com",
      subjectId,
      givenAt: "2026-01-30T09:00:00.000Z",
      receipts: { measurement: { value: true, confirmedAt: "2026-01-30T09:00:00.000Z" } },
      vendorChoice: { grants: { analytics: true }, confirmedAt: "2026-01-30T09:00:00.000Z" },
      externalSubjectId: "user-1",
      experiment: { id: "exp-1", arm: "a" }
    })
    await unwrap(
      keyed().subjects.create({
        type: "privacy_policy_eu",
        domain: "example.com",
        subjectId,
        givenAt: 1_769_763_600_000,
        policyHash: "abc"
      })
    )
    expect(JSON.parse(last().body)).toEqual({
      type: "privacy_policy_eu",
      domain: "example.com",
      subjectId,
      givenAt: new Date(1_769_763_600_000).toISOString(),
      policyHash: "abc"
    })
  })

  it("subjects.list: externalId query; subjects with consents and policy fields", async () => {
    server.handle(reply(200, listBody))
    const data = await unwrap(keyed().subjects.list({ externalId: "user-1" }))
    expect(last()).toMatchObject({ path: "/subjects", query: { externalId: "user-1" } })
    const consent = data.subjects[0]!.consents[0]!
    expect(data.subjects[0]!.createdAt).toBeInstanceOf(Date)
    expect(consent).toMatchObject({
      type: "privacy_policy",
      isLatestPolicy: true,
      policyVersion: "v2",
      policyHash: "abc"
    })
    expect(consent.policyEffectiveDate).toEqual(new Date("2026-01-01T00:00:00.000Z"))
    expect(consent.preferences).toBeTruthy()
  })

  it("legalDocuments.publish: PUT with version, hash and an ISO effectiveDate; policy with id, type, version", async () => {
    server.handle(reply(200, publishBody))
    const data = await unwrap(
      keyed().legalDocuments.publish("privacy_policy", { version: "v2", hash: "abc", effectiveDate: "2026-02-01" })
    )
    expect(data.policy).toMatchObject({ id: "pol_1", type: "privacy_policy", version: "v2" })
    expect(data.policy.effectiveDate).toBeInstanceOf(Date)
    expect(last()).toMatchObject({ method: "PUT", path: "/legal-documents/privacy_policy/current" })
    expect(JSON.parse(last().body)).toEqual({ version: "v2", hash: "abc", effectiveDate: "2026-02-01T00:00:00.000Z" })
    await unwrap(
      keyed().legalDocuments.publish("dpa_eu-2", {
        version: "v3",
        hash: "def",
        effectiveDate: new Date("2026-03-01T12:00:00+02:00")
      })
    )
    expect(last().path).toBe("/legal-documents/dpa_eu-2/current")
    expect(JSON.parse(last().body).effectiveDate).toBe("2026-03-01T10:00:00.000Z")
  })

  it("experiments.summary: from/to as Dates or ISO strings (bare dates kept whole-day), domain; arms, from, to", async () => {
    server.handle(reply(200, summaryBody))
    const data = await unwrap(
      keyed().experiments.summary("exp-1", {
        from: "2026-01-01",
        to: new Date("2026-01-31T23:59:59.000Z"),
        domain: "example.com"
      })
    )
    expect(last()).toMatchObject({
      path: "/experiments/exp-1/summary",
      query: { from: "2026-01-01", to: "2026-01-31T23:59:59.000Z", domain: "example.com" }
    })
    expect(data.arms[0]).toMatchObject({ arm: "a", choices: 3, byAction: { accept_all: 2, reject_all: 1 } })
    expect(data.from).toBe("2026-01-01")
    expect(data.to).toBeNull()
    await unwrap(keyed().experiments.summary("exp/ä 1", { from: "2026-01-01T10:00:00+01:00" }))
    expect(last().url).toBe("/experiments/exp%2F%C3%A4%201/summary?from=2026-01-01T09%3A00%3A00.000Z")
    await unwrap(keyed().experiments.summary("exp-1"))
    expect(last().query).toEqual({})
  })

  it("init: country, region, gpc and language sent as x-svc-country, x-svc-region, x-svc-gpc and Accept-Language", async () => {
    server.handle(reply(200, initBody))
    const data = await unwrap(keyed().init({ language: "de-DE,de;q=0.9", country: "DE", region: "BY", gpc: true }))
    expect(data.policyResolution.status).toBe("matched")
    expect(data.location.country).toBe("DE")
    const headers = last().headers
    expect(headers["x-svc-country"]).toBe("DE")
    expect(headers["x-svc-region"]).toBe("BY")
    expect(headers["x-svc-gpc"]).toBe("1")
    expect(headers["accept-language"]).toBe("de-DE,de;q=0.9")
    await unwrap(keyed().init({ gpc: false }))
    expect(last().headers["x-svc-gpc"]).toBe("0")
  })

  it("init: inputs win over caller headers of the same names; omitted inputs send no override", async () => {
    server.handle(reply(200, initBody))
    await unwrap(keyed().init({ country: "FR" }, { headers: { "x-svc-country": "US", "x-svc-region": "CA" } }))
    expect(last().headers["x-svc-country"]).toBe("FR")
    expect(last().headers["x-svc-region"]).toBe("CA")
    await unwrap(keyed().init())
    expect(last().headers["x-svc-country"]).toBeUndefined()
    expect(last().headers["x-svc-gpc"]).toBeUndefined()
  })

  it("manifest: modified with the manifest and its etag", async () => {
    server.handle(reply(200, manifestBody, { etag: '"rev-1"' }))
    const data = await unwrap(keyed().manifest({ language: "en" }))
    expect(data).toMatchObject({
      status: "modified",
      etag: '"rev-1"',
      manifest: { revision: "rev-1", branding: "svc" }
    })
    expect(last()).toMatchObject({ path: "/manifest", query: { language: "en" } })
  })

  it("manifest: ifNoneMatch is sent as If-None-Match; 304 is not-modified with the etag", async () => {
    server.handle((_, res) => {
      res.writeHead(304, { etag: '"rev-1"' })
      res.end()
    })
    const result = await keyed().manifest({ ifNoneMatch: '"rev-1"' })
    expect(result).toMatchObject({ ok: true, status: 304, data: { status: "not-modified", etag: '"rev-1"' } })
    expect(last().headers["if-none-match"]).toBe('"rev-1"')
  })
})
