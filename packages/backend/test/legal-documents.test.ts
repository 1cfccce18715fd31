import { describe, expect, it } from "vitest"
import { bearer, call, newSubjectId, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "legal-key-0123456789abcdef-012345678"

describe.each(dialects)("PUT /legal-documents/:type/current [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY] })
  const put = (type: string, body: unknown, headers = bearer(API_KEY)) =>
    call(server, "PUT", `/legal-documents/${type}/current`, body, headers)
  const rows = (type: string) =>
    server.db().query(
      "SELECT id, version, hash, effective_date, revision FROM svc_legal_documents WHERE type = ? ORDER BY revision",
      [type]
    )

  it("publishes a release and answers it as policy", async () => {
    const { body, status } = await put("privacy_policy", {
      version: "1.0",
      hash: "sha256-aaa",
      effectiveDate: "2026-01-15"
    })
    expect(status).toBe(200)
    expect(body).toEqual({
      policy: {
        id: expect.stringMatching(/^pol_/),
        type: "privacy_policy",
        version: "1.0",
        hash: "sha256-aaa",
        effectiveDate: "2026-01-15T00:00:00.000Z",
        createdAt: expect.any(String)
      }
    })
  })

  it("accepts the three types with an optional suffix, and refuses anything else with 400", async () => {
    for (const type of ["dpa", "terms_and_conditions", "privacy_policy_eu", "dpa_v-2"]) {
      expect(
        (await put(type, { version: "1", hash: `h-${type}`, effectiveDate: Date.parse("2026-01-01") })).status,
        type
      ).toBe(200)
    }
    for (const type of ["cookie_banner", "privacy", "privacy_policy_EU", "dpa_", `dpa_${"x".repeat(33)}`]) {
      const answer = await put(type, { version: "1", hash: "h", effectiveDate: "2026-01-01" })
      expect(answer.status, type).toBe(400)
      expect(answer.body.cause.code).toBe("INVALID_REQUEST")
    }
  })

  it("rejects impossible or malformed effective dates with 400", async () => {
    for (const effectiveDate of ["2026-02-30", "2026-13-01", "2025-02-29", "2026-01-01T25:00:00Z", "yesterday", -5,
      9_000_000_000_000_000])
    {
      const answer = await put("dpa_dates", { version: "1", hash: `h-${effectiveDate}`, effectiveDate })
      expect(answer.status, String(effectiveDate)).toBe(400)
      expect(answer.body.cause.code).toBe("INVALID_REQUEST")
    }
    expect(await rows("dpa_dates")).toHaveLength(0)
  })

  it("changes nothing when the same hash, version and date are republished", async () => {
    const body = { version: "3", hash: "tc-h", effectiveDate: "2026-03-01T00:00:00Z" }
    const first = await put("terms_and_conditions_same", body)
    const again = await put("terms_and_conditions_same", { ...body, effectiveDate: Date.parse(body.effectiveDate) })
    expect(again.status).toBe(200)
    expect(again.body).toEqual(first.body)
    expect(await rows("terms_and_conditions_same")).toHaveLength(1)
  })

  it("refuses the same hash with another version or date with 409 CONFLICT, keeping the release", async () => {
    await put("privacy_policy_conflict", { version: "1", hash: "pc-h", effectiveDate: "2026-01-01" })
    const before = await rows("privacy_policy_conflict")
    for (const body of [{ version: "2", hash: "pc-h", effectiveDate: "2026-01-01" }, {
      version: "1",
      hash: "pc-h",
      effectiveDate: "2026-01-02"
    }]) {
      const answer = await put("privacy_policy_conflict", body)
      expect(answer.status).toBe(409)
      expect(answer.body.cause).toEqual({ code: "CONFLICT" })
    }
    expect(await rows("privacy_policy_conflict")).toEqual(before)
  })

  it("makes the latest publish current, so consents and checks report isLatestPolicy", async () => {
    const v1 =
      (await put("privacy_policy_latest", { version: "1", hash: "l-1", effectiveDate: "2026-05-01" })).body.policy
    const subjectId = newSubjectId()
    await save(server, {
      type: "privacy_policy_latest",
      domain: "example.com",
      subjectId,
      givenAt: Date.now(),
      externalSubjectId: "legal-user"
    }, bearer(API_KEY))
    const check = () =>
      call(
        server,
        "GET",
        "/consents/check?externalId=legal-user&type=privacy_policy_latest",
        undefined,
        bearer(API_KEY)
      )
    expect((await check()).body.results.privacy_policy_latest).toEqual({ hasConsent: true, isLatestPolicy: true })
    // the latest publish wins even with an earlier effective date
    await put("privacy_policy_latest", { version: "0.9", hash: "l-0", effectiveDate: "2025-01-01" })
    expect((await check()).body.results.privacy_policy_latest).toEqual({ hasConsent: true, isLatestPolicy: false })
    const view = await call(server, "GET", `/subjects/${subjectId}`)
    expect(view.body.consents[0]).toMatchObject({ policyId: v1.id, policyVersion: "1", isLatestPolicy: false })
    // republishing an older hash unchanged changes nothing: it does not become current again
    await put("privacy_policy_latest", { version: "1", hash: "l-1", effectiveDate: "2026-05-01" })
    expect((await check()).body.results.privacy_policy_latest.isLatestPolicy).toBe(false)
  })

  it("keeps exactly one current release when publishes race", async () => {
    const answers = await Promise.all(
      Array.from(
        { length: 6 },
        (_, i) => put("dpa_race", { version: `${i}`, hash: `race-${i}`, effectiveDate: "2026-01-01" })
      )
    )
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200])
    const stored = await rows("dpa_race")
    expect(stored.map((r) => Number(r.revision))).toEqual([1, 2, 3, 4, 5, 6])
    const current = stored[stored.length - 1]!
    const subjectId = newSubjectId()
    await save(server, { type: "dpa_race", domain: "example.com", subjectId, givenAt: Date.now() })
    const view = await call(server, "GET", `/subjects/${subjectId}`)
    expect(view.body.consents[0]).toMatchObject({ policyId: current.id, isLatestPolicy: true })
  })

  it("needs an API key", async () => {
    const answer = await put("dpa", { version: "1", hash: "x", effectiveDate: "2026-01-01" }, {} as never)
    expect(answer.status).toBe(401)
    expect(answer.body.cause.code).toBe("UNAUTHORIZED")
  })
})
