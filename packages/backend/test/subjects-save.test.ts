import { signIdentityToken, signLegalDocumentSnapshot } from "@svc/backend"
import { describe, expect, it } from "vitest"
import {
  allPreferences,
  bearer,
  call,
  consentRows,
  cookieSave,
  newSubjectId,
  publishRelease,
  save,
  subjectRow
} from "./support/consent-saves.js"
import { useCountingServer } from "./support/counting-server.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "subjects-key-0123456789abcdef-012345"
const IDENTITY = { signingKey: "identity-signing-key-0123456789abcdef", issuer: "svc", audience: "svc-identity" }
const LEGAL = { signingKey: "legal-signing-key-0123456789abcdefgh" }

describe.each(dialects)("POST /subjects [%s]", (dialect) => {
  const server = useServer(dialect, {
    apiKeys: [API_KEY],
    identityToken: { signingKey: IDENTITY.signingKey },
    legalDocumentSnapshot: LEGAL,
    manifest: {
      policyRules: [{
        id: "everywhere",
        match: { default: true },
        model: "opt-in",
        categories: ["measurement", "marketing"]
      }],
      vendors: [
        { id: "analytics-co", name: "Analytics Co", category: "measurement" },
        { id: "ads-co", name: "Ads Co", category: "marketing" }
      ]
    }
  })

  describe("a cookie-banner save", () => {
    it("is stored and answered with subjectId, consentId, appliedPreferences and givenAt as sent", async () => {
      const givenAt = "2026-03-01T10:15:30.123Z"
      const body = cookieSave({
        givenAt,
        preferences: { ...allPreferences(false), necessary: false, measurement: true }
      })
      const before = Date.now()
      const { body: answer, status } = await save(server, body)
      expect(status).toBe(200)
      expect(answer).toEqual({
        subjectId: body.subjectId,
        consentId: expect.stringMatching(/^cns_/),
        appliedPreferences: { ...allPreferences(false), necessary: true, measurement: true },
        givenAt,
        runtimePolicySource: null
      })
      const [row] = await consentRows(server, body.subjectId as string)
      expect(Number(row!.given_at)).toBe(Date.parse(givenAt))
      // createdAt is receipt time, not click time
      expect(Number(row!.created_at)).toBeGreaterThanOrEqual(before)
      expect(JSON.parse(row!.receipts as string)).toEqual({
        measurement: { value: true, confirmedAt: Date.parse(givenAt) },
        marketing: { value: false, confirmedAt: Date.parse(givenAt) },
        functionality: { value: false, confirmedAt: Date.parse(givenAt) },
        experience: { value: false, confirmedAt: Date.parse(givenAt) }
      })
    })

    it("accepts givenAt and confirmedAt as epoch milliseconds and keeps explicit receipts as sent", async () => {
      const givenAt = Date.parse("2026-03-02T08:00:00.000Z")
      const body = cookieSave({ givenAt, receipts: { marketing: { value: true, confirmedAt: givenAt - 5000 } } })
      const { body: answer, status } = await save(server, body)
      expect(status).toBe(200)
      expect(answer.givenAt).toBe("2026-03-02T08:00:00.000Z")
      const [row] = await consentRows(server, body.subjectId as string)
      expect(JSON.parse(row!.receipts as string)).toEqual({ marketing: { value: true, confirmedAt: givenAt - 5000 } })
    })

    it("keeps experiment attribution and the journey id", async () => {
      const body = cookieSave({
        experiment: { id: "exp-7", arm: "B" },
        action: "custom",
        surface: "dialog",
        timeToDecisionMs: 4321,
        journey: { id: "j-123" }
      })
      expect((await save(server, body)).status).toBe(200)
      const [row] = await consentRows(server, body.subjectId as string)
      expect(row).toMatchObject({
        experiment_id: "exp-7",
        experiment_arm: "B",
        action: "custom",
        surface: "dialog",
        journey_id: "j-123"
      })
      expect(Number(row!.time_to_decision_ms)).toBe(4321)
    })

    it("refuses a cookie-banner save without preferences, or with a bad subject id, with 400 INVALID_REQUEST", async () => {
      const { preferences: _, ...withoutPreferences } = cookieSave()
      for (const body of [withoutPreferences, cookieSave({ subjectId: "user-1" }),
        cookieSave({ givenAt: "2026-02-30" })])
      {
        const { body: answer, status } = await save(server, body)
        expect(status).toBe(400)
        expect(answer.cause.code).toBe("INVALID_REQUEST")
      }
    })

    it("refuses what it could not store faithfully with 400: times beyond the date range, an oversized vendor map", async () => {
      const grants: Record<string, boolean> = {}
      for (let i = 0; i < 2500; i++) grants[`vendor-with-a-long-identifier-${i}`] = i % 2 === 0
      const bodies = [
        cookieSave({ givenAt: 9_000_000_000_000_000 }),
        cookieSave({ receipts: { marketing: { value: true, confirmedAt: 9_000_000_000_000_000 } } }),
        cookieSave({ vendorChoice: { grants, confirmedAt: Date.now() } })
      ]
      for (const body of bodies) {
        const { body: answer, status } = await save(server, body)
        expect(status).toBe(400)
        expect(answer.cause.code).toBe("INVALID_REQUEST")
        expect(await consentRows(server, body.subjectId as string)).toHaveLength(0)
      }
    })

    it("answers subjectVendorChoice only when the act carries vendor choices", async () => {
      const plain = await save(server, cookieSave())
      expect(plain.body).not.toHaveProperty("subjectVendorChoice")
      const confirmedAt = Date.now() - 1000
      const withVendors = await save(server, cookieSave({ vendorChoice: { grants: { "ads-co": false }, confirmedAt } }))
      expect(withVendors.body.subjectVendorChoice).toEqual({
        grants: { "ads-co": false },
        confirmedAt: new Date(confirmedAt).toISOString(),
        derived: { "analytics-co": true }
      })
    })
  })

  describe("idempotency", () => {
    it("returns the existing record when the same act is saved again", async () => {
      const body = cookieSave({ vendorChoice: { grants: { "ads-co": true }, confirmedAt: Date.now() } })
      const first = await save(server, body)
      const again = await save(server, body)
      expect(again.status).toBe(200)
      expect(again.body).toEqual(first.body)
      expect(await consentRows(server, body.subjectId as string)).toHaveLength(1)
    })

    it("treats the same act with key order and time spelling changed as the same act", async () => {
      const givenAt = Date.parse("2026-04-01T12:00:00.000Z")
      const body = cookieSave({ givenAt })
      const first = await save(server, body)
      const reordered = {
        ...body,
        givenAt: "2026-04-01T14:00:00+02:00",
        preferences: { experience: true, functionality: true, marketing: true, measurement: true, necessary: true }
      }
      const again = await save(server, reordered)
      expect(again.body.consentId).toBe(first.body.consentId)
    })

    it("records another givenAt or domain as another act", async () => {
      const body = cookieSave()
      await save(server, body)
      await save(server, { ...body, givenAt: (body.givenAt as number) + 1 })
      await save(server, { ...body, domain: "other.example" })
      expect(await consentRows(server, body.subjectId as string)).toHaveLength(3)
    })

    it("keeps one row and gives two identical answers when two identical saves race", async () => {
      for (let round = 0; round < 6; round++) {
        const body = cookieSave({ vendorChoice: { grants: { "ads-co": round % 2 === 0 }, confirmedAt: Date.now() } })
        const [a, b] = await Promise.all([save(server, body), save(server, body)])
        expect(a.status, JSON.stringify(a.body)).toBe(200)
        expect(b.status, JSON.stringify(b.body)).toBe(200)
        expect(b.body).toEqual(a.body)
        expect(await consentRows(server, body.subjectId as string)).toHaveLength(1)
      }
    })

    it("keeps one row when many identical saves race on an existing subject", async () => {
      const subjectId = newSubjectId()
      await save(server, cookieSave({ subjectId, givenAt: 1_700_000_000_000 }))
      const body = cookieSave({ subjectId })
      const answers = await Promise.all(Array.from({ length: 8 }, () => save(server, body)))
      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]))
      expect(new Set(answers.map((a) => a.body.consentId)).size).toBe(1)
      expect(await consentRows(server, subjectId)).toHaveLength(2)
    })

    const conflicting: ReadonlyArray<[string, (body: Record<string, unknown>) => Record<string, unknown>]> = [
      ["different receipts", (b) => ({ ...b, receipts: { measurement: { value: false, confirmedAt: b.givenAt } } })],
      ["different purposes", (b) => ({ ...b, preferences: allPreferences(false) })],
      ["a different vendor map",
        (b) => ({ ...b, vendorChoice: { grants: { "ads-co": false }, confirmedAt: b.givenAt } })],
      ["a vendor map the first save did not have", (b) => ({ ...b, vendorChoice: undefined })]
    ]
    for (const [what, change] of conflicting) {
      it(`answers a retry with ${what} with 409 CONFLICT and keeps the earlier record`, async () => {
        const body = cookieSave({ vendorChoice: { grants: { "ads-co": true }, confirmedAt: Date.now() } })
        const first = await save(server, body)
        const [before] = await consentRows(server, body.subjectId as string)
        const retry = await save(server, change(body))
        expect(retry.status).toBe(409)
        expect(retry.body.cause).toEqual({ code: "CONFLICT" })
        const rows = await consentRows(server, body.subjectId as string)
        expect(rows).toEqual([before])
        expect(rows[0]!.id).toBe(first.body.consentId)
      })
    }

    it("answers a retry against a stored vendor map that cannot be read with 409 CONFLICT", async () => {
      const body = cookieSave({ vendorChoice: { grants: { "ads-co": true }, confirmedAt: Date.now() } })
      await save(server, body)
      await server.db().query("UPDATE svc_consents SET vendor_choice = ? WHERE subject_id = ?", ["{not json",
        body.subjectId])
      const retry = await save(server, body)
      expect(retry.status).toBe(409)
      expect(retry.body.cause.code).toBe("CONFLICT")
      const [row] = await consentRows(server, body.subjectId as string)
      expect(row!.vendor_choice).toBe("{not json")
    })
  })

  describe("identity links made by a save", () => {
    it("links verified with an API key, or with a valid identity token when the save creates the subject", async () => {
      const byKey = cookieSave({ externalSubjectId: "user-key" })
      expect((await save(server, byKey, bearer(API_KEY))).status).toBe(200)
      expect(await subjectRow(server, byKey.subjectId as string)).toMatchObject({
        external_id: "user-key",
        identity_provider: "external"
      })
      expect(Number((await subjectRow(server, byKey.subjectId as string))!.verified)).toBe(1)

      const token = await signIdentityToken(IDENTITY, { externalId: "user-token", identityProvider: "auth0" })
      const byToken = cookieSave({ externalSubjectId: "user-token", identityProvider: "auth0", identityToken: token })
      expect((await save(server, byToken)).status).toBe(200)
      const row = await subjectRow(server, byToken.subjectId as string)
      expect(row).toMatchObject({ external_id: "user-token", identity_provider: "auth0" })
      expect(Number(row!.verified)).toBe(1)
    })

    it("links unverified without a key or with a bad token, and still records the consent", async () => {
      const wrongUser = await signIdentityToken(IDENTITY, { externalId: "someone-else" })
      const wrongIdp = await signIdentityToken(IDENTITY, { externalId: "user-x", identityProvider: "okta" })
      const forged = await signIdentityToken({ ...IDENTITY, signingKey: "another-key-0123456789abcdefghijkl" }, {
        externalId: "user-x"
      })
      const expired = await signIdentityToken(IDENTITY, { externalId: "user-x" }, -60)
      for (const identityToken of [undefined, "garbage", wrongUser, wrongIdp, forged, expired]) {
        const body = cookieSave({
          externalSubjectId: "user-x",
          ...(identityToken === undefined ? {} : { identityToken })
        })
        const { status } = await save(server, body)
        expect(status, String(identityToken)).toBe(200)
        const row = await subjectRow(server, body.subjectId as string)
        expect(row).toMatchObject({ external_id: "user-x", identity_provider: "external" })
        expect(Number(row!.verified)).toBe(0)
        expect(await consentRows(server, body.subjectId as string)).toHaveLength(1)
      }
    })

    it("applies a token only when the save creates the subject", async () => {
      const subjectId = newSubjectId()
      await save(server, cookieSave({ subjectId, givenAt: 1_700_000_000_000 }))
      const token = await signIdentityToken(IDENTITY, { externalId: "late-user" })
      expect(
        (await save(server, cookieSave({ subjectId, externalSubjectId: "late-user", identityToken: token }))).status
      ).toBe(200)
      const row = await subjectRow(server, subjectId)
      expect(row!.external_id).toBeNull()
      expect(Number(row!.verified)).toBe(0)
    })
  })

  describe("legal-document saves", () => {
    const publish = (type: string, hash: string, version: string) =>
      publishRelease(server, API_KEY, { type, hash, version })

    it("names the document by policyHash, policyId, documentSnapshotToken, or else the current release", async () => {
      const v1 = (await publish("terms_and_conditions_eu", "tc-hash-1", "1.0")).body.policy
      const v2 = (await publish("terms_and_conditions_eu", "tc-hash-2", "2.0")).body.policy
      const base = { type: "terms_and_conditions_eu", domain: "example.com", givenAt: Date.now() }
      const cases: ReadonlyArray<[Record<string, unknown>, string]> = [
        [{ policyHash: "tc-hash-1" }, v1.id],
        [{ policyId: v1.id }, v1.id],
        [{
          documentSnapshotToken: await signLegalDocumentSnapshot(LEGAL, {
            type: "terms_and_conditions_eu",
            hash: "tc-hash-1"
          })
        }, v1.id],
        [{}, v2.id]
      ]
      for (const [reference, releaseId] of cases) {
        const subjectId = newSubjectId()
        const answer = await save(server, { ...base, subjectId, ...reference })
        expect(answer.status, JSON.stringify(answer.body)).toBe(200)
        expect(answer.body.appliedPreferences).toBeNull()
        const [row] = await consentRows(server, subjectId)
        expect(row!.legal_release_id).toBe(releaseId)
        const view = await call(server, "GET", `/subjects/${subjectId}`)
        expect(view.body.consents[0]).toMatchObject({
          type: "terms_and_conditions_eu",
          policyHash: releaseId === v1.id ? "tc-hash-1" : "tc-hash-2",
          policyVersion: releaseId === v1.id ? "1.0" : "2.0",
          policyEffectiveDate: "2026-01-01T00:00:00.000Z",
          isLatestPolicy: releaseId === v2.id
        })
      }
    })

    it("treats acceptances of two documents at one givenAt as two acts, and a repeat as the same act", async () => {
      await publish("dpa", "dpa-1", "1")
      await publish("dpa", "dpa-2", "2")
      const body = { type: "dpa", domain: "example.com", subjectId: newSubjectId(), givenAt: Date.now() }
      const a = await save(server, { ...body, policyHash: "dpa-1" })
      const b = await save(server, { ...body, policyHash: "dpa-2" })
      const again = await save(server, { ...body, policyHash: "dpa-1" })
      expect(a.body.consentId).not.toBe(b.body.consentId)
      expect(again.body.consentId).toBe(a.body.consentId)
      expect(await consentRows(server, body.subjectId)).toHaveLength(2)
    })

    it("refuses an unknown document with 400, and a bad document snapshot with 409 POLICY_SNAPSHOT_INVALID", async () => {
      await publish("privacy_policy", "pp-1", "1")
      const base = { type: "privacy_policy", domain: "example.com", subjectId: newSubjectId(), givenAt: Date.now() }
      const unknown = await save(server, { ...base, policyHash: "never-published" })
      expect(unknown.status).toBe(400)
      expect(unknown.body.cause.code).toBe("INVALID_REQUEST")
      const forged = await signLegalDocumentSnapshot({ signingKey: "x".repeat(40) }, {
        type: "privacy_policy",
        hash: "pp-1"
      })
      const otherType = await signLegalDocumentSnapshot(LEGAL, { type: "dpa", hash: "pp-1" })
      for (const documentSnapshotToken of ["garbage", forged, otherType]) {
        const answer = await save(server, { ...base, documentSnapshotToken })
        expect(answer.status).toBe(409)
        expect(answer.body.cause.code).toBe("POLICY_SNAPSHOT_INVALID")
      }
      const old = await signLegalDocumentSnapshot(
        LEGAL,
        { type: "privacy_policy", hash: "pp-1" },
        new Date(Date.now() - 3 * 86_400_000)
      )
      const expired = await save(server, { ...base, documentSnapshotToken: old })
      expect(expired.status).toBe(409)
      expect(expired.body.cause.code).toBe("POLICY_SNAPSHOT_EXPIRED")
      expect(await consentRows(server, base.subjectId)).toHaveLength(0)
    })
  })
})

describe.each(dialects)("the statements of a save [%s]", (dialect) => {
  const server = useCountingServer(dialect)

  it("writes the subject and its act in one statement on PostgreSQL; a replay reads the stored act once more", async () => {
    const cost = async (body: Record<string, unknown>) => {
      const before = server.statements()
      const answer = await save(server, body)
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      return server.statements() - before
    }
    const subjectId = newSubjectId()
    const t = Date.now() - 10_000
    const first = await cost(cookieSave({ subjectId, givenAt: t }))
    const returning = await cost(cookieSave({ subjectId, givenAt: t + 1_000 }))
    const replay = await cost(cookieSave({ subjectId, givenAt: t + 1_000 }))
    // Elsewhere, in one transaction: the subject's insert, its owner's read when it exists, the act's insert.
    expect({ first, returning, replay }).toEqual(
      dialect === "postgres" ? { first: 1, returning: 1, replay: 2 } : { first: 2, returning: 3, replay: 4 }
    )
    expect(await consentRows(server, subjectId)).toHaveLength(2)
  })
})

describe.each(dialects.filter((dialect) => dialect === "postgres"))("a save racing a new subject [%s]", (dialect) => {
  const server = useServer(dialect)

  it("waits for the transaction writing the subject, then records its act under that subject", async () => {
    const db = server.db()
    const subjectId = newSubjectId()
    await db.query("BEGIN")
    await db.query(
      "INSERT INTO svc_subjects (id, tenant_id, verified, created_at, updated_at) VALUES (?, '', 0, 1, 1)",
      [subjectId]
    )
    const [holder] = await db.query("SELECT pg_backend_pid() AS pid")
    let answered = false
    const answer = save(server, cookieSave({ subjectId })).finally(() => (answered = true))
    // Until the save waits for this transaction's row: its statement's snapshot will not see the row.
    const waiting = () =>
      db.query(
        `SELECT 1 FROM pg_locks w JOIN pg_locks h ON h.transactionid = w.transactionid AND h.granted AND h.pid = ?
          WHERE NOT w.granted`,
        [holder!.pid]
      )
    while (!answered && (await waiting()).length === 0);
    await db.query("COMMIT")
    const { body, status } = await answer
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.subjectId).toBe(subjectId)
    expect(await consentRows(server, subjectId)).toHaveLength(1)
    expect(Number((await subjectRow(server, subjectId))?.created_at)).toBe(1)
  })
})
