import { describe, expect, it } from "vitest"
import { bearer, call, consentRows, cookieSave, newSubjectId, save, subjectRow } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServersOnOneDatabase } from "./support/shared-database.js"

const API_KEY = "tenancy-key-0123456789abcdef-0123456"

describe.each(dialects)("tenancy on one shared database [%s]", (dialect) => {
  const [acme, globex, unscoped] = useServersOnOneDatabase(dialect, [
    { apiKeys: [API_KEY], tenantId: "acme" },
    { apiKeys: [API_KEY], tenantId: "globex" },
    { apiKeys: [API_KEY] }
  ])

  it("stores rows under the instance's tenant, '' without one", async () => {
    const a = cookieSave()
    const n = cookieSave()
    expect((await save(acme!, a)).status).toBe(200)
    expect((await save(unscoped!, n)).status).toBe(200)
    expect((await subjectRow(acme!, a.subjectId as string))!.tenant_id).toBe("acme")
    expect((await consentRows(acme!, a.subjectId as string))[0]!.tenant_id).toBe("acme")
    expect((await subjectRow(acme!, n.subjectId as string))!.tenant_id).toBe("")
  })

  it("answers a save naming another tenant's subject id with 409 SUBJECT_CONFLICT and writes nothing", async () => {
    const subjectId = newSubjectId()
    await save(acme!, cookieSave({ subjectId, givenAt: 1_700_000_000_000 }))
    for (const other of [globex!, unscoped!]) {
      const answer = await save(other, cookieSave({ subjectId, externalSubjectId: "intruder" }), bearer(API_KEY))
      expect(answer.status).toBe(409)
      expect(answer.body.cause).toEqual({ code: "SUBJECT_CONFLICT" })
    }
    expect(await consentRows(acme!, subjectId)).toHaveLength(1)
    const row = await subjectRow(acme!, subjectId)
    expect(row).toMatchObject({ tenant_id: "acme", external_id: null })
  })

  it("never reads another tenant's rows, and a null-tenant instance never reads a tenant's rows", async () => {
    const subjectId = newSubjectId()
    await save(acme!, cookieSave({ subjectId, externalSubjectId: "shared-user" }), bearer(API_KEY))
    expect((await call(acme!, "GET", `/subjects/${subjectId}`)).status).toBe(200)
    for (const other of [globex!, unscoped!]) {
      expect((await call(other, "GET", `/subjects/${subjectId}`)).status).toBe(404)
      expect((await call(other, "PATCH", `/subjects/${subjectId}`, { externalId: "x" }, bearer(API_KEY))).status).toBe(
        404
      )
      const list = await call(other, "GET", "/subjects?externalId=shared-user", undefined, bearer(API_KEY))
      expect(list.body).toEqual({ subjects: [] })
      const check = await call(
        other,
        "GET",
        "/consents/check?externalId=shared-user&type=cookie_banner",
        undefined,
        bearer(API_KEY)
      )
      expect(check.body.results.cookie_banner).toEqual({ hasConsent: false, isLatestPolicy: false })
    }
    const own = await call(acme!, "GET", "/subjects?externalId=shared-user", undefined, bearer(API_KEY))
    expect(own.body.subjects.map((s: { id: string }) => s.id)).toEqual([subjectId])
  })

  it("ignores any tenant header: the instance's tenantId scopes it", async () => {
    const body = cookieSave()
    expect((await save(unscoped!, body, { "x-svc-tenant": "acme", "x-tenant-id": "acme" })).status).toBe(200)
    expect((await subjectRow(acme!, body.subjectId as string))!.tenant_id).toBe("")
    expect((await call(acme!, "GET", `/subjects/${body.subjectId}`)).status).toBe(404)
  })

  it("keeps legal document releases per tenant", async () => {
    const put = (server: typeof acme, version: string, hash: string) =>
      call(
        server!,
        "PUT",
        "/legal-documents/privacy_policy/current",
        { version, hash, effectiveDate: "2026-01-01" },
        bearer(API_KEY)
      )
    expect((await put(acme, "1", "same-hash")).status).toBe(200)
    // the same hash under another tenant is another tenant's release, not a conflict
    expect((await put(globex, "9", "same-hash")).status).toBe(200)
    const subjectId = newSubjectId()
    await save(globex!, { type: "privacy_policy", domain: "g.example", subjectId, givenAt: Date.now() })
    expect((await call(globex!, "GET", `/subjects/${subjectId}`)).body.consents[0]).toMatchObject({
      policyVersion: "9",
      isLatestPolicy: true
    })
    await put(acme, "2", "acme-new")
    expect((await call(globex!, "GET", `/subjects/${subjectId}`)).body.consents[0].isLatestPolicy).toBe(true)
  })
})
