import { SubjectExport } from "@svc/schema"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { allPreferences, bearer, call, cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "export-key-0123456789abcdef-01234567"
const DAY = 86_400_000

describe.each(dialects)("GET /subjects/:id/export and /subjects/export [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY] })
  const exportOf = (subjectId: string, headers = bearer(API_KEY)) =>
    call(server, "GET", `/subjects/${subjectId}/export`, undefined, headers)

  it("answers every record of the subject in the 27560 shape, round-tripping through the schema", async () => {
    const subjectId = newSubjectId()
    const givenAt = Date.UTC(2026, 0, 10, 9)
    const agent = { "user-agent": "ExportBrowser/1.0", "x-forwarded-for": "203.0.113.77" }
    expect(
      (await save(
        server,
        cookieSave({
          subjectId,
          givenAt,
          externalSubjectId: "export-user-1",
          surface: "banner",
          action: "accept_all",
          journey: { id: "jr-1" },
          vendorChoice: { grants: { "vendor-a": true }, confirmedAt: givenAt }
        }),
        { ...bearer(API_KEY), ...agent }
      )).status
    ).toBe(200)
    const policy = (await call(server, "PUT", "/legal-documents/privacy_policy/current", {
      version: "4",
      hash: "pp-export",
      effectiveDate: "2026-01-01"
    }, bearer(API_KEY))).body.policy
    expect(
      (await save(server, { type: "privacy_policy", domain: "example.com", subjectId, givenAt: givenAt + 1000 })).status
    ).toBe(200)

    const answer = await exportOf(subjectId)
    expect(answer.status).toBe(200)
    const decoded = Schema.decodeUnknownSync(SubjectExport)(answer.body)
    expect(Schema.encodeSync(SubjectExport)(decoded)).toEqual(answer.body)
    expect(answer.body.subjects).toHaveLength(1)
    const [entry] = answer.body.subjects
    expect(entry.subjectId).toBe(subjectId)
    expect(entry.identityLinks).toEqual([{ externalId: "export-user-1", identityProvider: "external", verified: true }])
    const [banner, legal] = entry.records
    expect(banner).toMatchObject({
      schemaVersion: expect.stringContaining("27560"),
      recordId: expect.stringMatching(/^cns_/),
      principal: { subjectId, externalIds: entry.identityLinks },
      policyType: "cookie_banner",
      events: [{ type: "given", time: new Date(givenAt).toISOString() }],
      vendors: { grants: { "vendor-a": true }, confirmedAt: new Date(givenAt).toISOString() },
      legalBasis: "consent",
      collection: { method: "banner", action: "accept_all", journeyId: "jr-1", snapshotSource: null },
      controller: { domain: "example.com" },
      proof: { userAgent: "ExportBrowser/1.0" },
      givenAt: new Date(givenAt).toISOString()
    })
    expect(banner.purposes).toHaveLength(4)
    expect(banner.purposes).toContainEqual({
      category: "marketing",
      granted: true,
      confirmedAt: new Date(givenAt).toISOString()
    })
    expect(legal).toMatchObject({
      policyType: "privacy_policy",
      purposes: [],
      notice: {
        legalDocument: { id: policy.id, version: "4", hash: "pp-export", effectiveDate: "2026-01-01T00:00:00.000Z" }
      }
    })
  })

  it("dates a withdrawal at the later act that refused a granted purpose, and an expiry at validityDays", async () => {
    const subjectId = newSubjectId()
    const old = Date.now() - 400 * DAY
    await save(server, cookieSave({ subjectId, givenAt: old }))
    const withdrawnAt = old + 10 * DAY
    await save(server, cookieSave({ subjectId, givenAt: withdrawnAt, preferences: allPreferences(false) }))
    const records = (await exportOf(subjectId)).body.subjects[0].records
    expect(records[0].events).toEqual([
      { type: "given", time: new Date(old).toISOString() },
      { type: "withdrawn", time: new Date(withdrawnAt).toISOString() }
    ])
    // the refusal itself expires after the default 365 days
    expect(records[1].events).toEqual([
      { type: "given", time: new Date(withdrawnAt).toISOString() },
      { type: "expired", time: new Date(withdrawnAt + 365 * DAY).toISOString() }
    ])
  })

  it("exports every subject verifiably linked to an external id", async () => {
    const a = newSubjectId()
    const b = newSubjectId()
    const unverified = newSubjectId()
    await save(server, cookieSave({ subjectId: a, externalSubjectId: "export-user-2" }), bearer(API_KEY))
    await save(server, cookieSave({ subjectId: b, externalSubjectId: "export-user-2" }), bearer(API_KEY))
    await save(server, cookieSave({ subjectId: unverified, externalSubjectId: "export-user-2" }))
    const answer = await call(server, "GET", "/subjects/export?externalId=export-user-2", undefined, bearer(API_KEY))
    expect(answer.status).toBe(200)
    expect(answer.body.subjects.map((s: { subjectId: string }) => s.subjectId).sort()).toEqual([a, b].sort())
    expect(answer.body.subjects.every((s: { records: Array<unknown> }) => s.records.length === 1)).toBe(true)
    const none = await call(server, "GET", "/subjects/export?externalId=nobody-here", undefined, bearer(API_KEY))
    expect(none.body.subjects).toEqual([])
  })

  it("answers 404 for an unknown subject, 400 for a malformed id, 401 without an API key", async () => {
    const missing = await exportOf(newSubjectId())
    expect(missing.status).toBe(404)
    expect(missing.body.cause).toEqual({ code: "NOT_FOUND" })
    expect((await exportOf("not-a-subject")).status).toBe(400)
    const subjectId = newSubjectId()
    await save(server, cookieSave({ subjectId }))
    for (const answer of [await exportOf(subjectId, {} as never),
      await call(server, "GET", "/subjects/export?externalId=x")])
    {
      expect(answer.status).toBe(401)
      expect(answer.body.cause.code).toBe("UNAUTHORIZED")
    }
  })
})
