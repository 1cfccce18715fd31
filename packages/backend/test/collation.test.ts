import { describe, expect, it } from "vitest"
import { bearer, call, cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServersOnOneDatabase } from "./support/shared-database.js"

const API_KEY = "collation-key-0123456789abcdef-01234"

// MySQL's default collations ignore case; svc's tables compare identifiers exactly everywhere.
describe.each(dialects)("identifiers compare exactly, case included [%s]", (dialect) => {
  const [lower, upper] = useServersOnOneDatabase(dialect, [
    { apiKeys: [API_KEY], tenantId: "acme" },
    { apiKeys: [API_KEY], tenantId: "ACME" }
  ])

  it("keeps tenants that differ only in case apart", async () => {
    const subjectId = newSubjectId()
    await save(lower!, cookieSave({ subjectId, externalSubjectId: "user-1" }), bearer(API_KEY))
    expect((await call(upper!, "GET", `/subjects/${subjectId}`)).status).toBe(404)
    const check = await call(
      upper!,
      "GET",
      "/consents/check?externalId=user-1&type=cookie_banner",
      undefined,
      bearer(API_KEY)
    )
    expect(check.body.results.cookie_banner).toEqual({ hasConsent: false, isLatestPolicy: false })
  })

  it("treats subject ids that differ only in case as different subjects", async () => {
    const id = newSubjectId()
    const swapped = `sub_${id.slice(4).replace(/[a-z]/g, (c) => c.toUpperCase()).replace(/^[^A-Z]*$/, (s) => `${s}X`)}`
    const first = await save(lower!, cookieSave({ subjectId: id, externalSubjectId: "lower-user" }), bearer(API_KEY))
    const second = await save(
      lower!,
      cookieSave({ subjectId: swapped, externalSubjectId: "upper-user" }),
      bearer(API_KEY)
    )
    expect(first.status).toBe(200)
    expect(second.status).toBe(200)
    expect((await call(lower!, "GET", `/subjects/${id}`)).body.subject.externalId).toBe("lower-user")
    expect((await call(lower!, "GET", `/subjects/${swapped}`)).body.subject.externalId).toBe("upper-user")
  })
})
