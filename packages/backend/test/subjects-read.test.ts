import { describe, expect, it } from "vitest"
import { allPreferences, call, cookieSave, newSubjectId, publishRelease, save } from "./support/consent-saves.js"
import { useCountingServer } from "./support/counting-server.js"
import { dialects } from "./support/dialects.js"

const API_KEY = "reads-key-0123456789abcdef-012345678"
const DAY = 86_400_000

describe.each(dialects)("GET /subjects/:id [%s]", (dialect) => {
  const server = useCountingServer(dialect, {
    apiKeys: [API_KEY],
    manifest: {
      policyRules: [{
        id: "everywhere",
        match: { default: true },
        model: "opt-in",
        categories: ["measurement", "marketing"]
      }],
      vendors: [
        { id: "vendor-a", name: "A", category: "measurement" },
        { id: "vendor-b", name: "B", category: "marketing" },
        { id: "vendor-c", name: "C", category: "marketing" },
        { id: "vendor-d", name: "D", category: "measurement" },
        { id: "vendor-n", name: "N", category: "necessary" }
      ]
    }
  })
  const view = (subjectId: string, query = "") => call(server, "GET", `/subjects/${subjectId}${query}`)
  const publish = (type: string, hash: string, version: string) =>
    publishRelease(server, API_KEY, { type, hash, version })

  it("answers an unknown subject with 404 NOT_FOUND", async () => {
    const { body, status } = await view(newSubjectId())
    expect(status).toBe(404)
    expect(body).toEqual({ message: expect.any(String), cause: { code: "NOT_FOUND" } })
  })

  it("returns the subject, its consents in act order, isValid, subjectChoice and subjectVendorChoice", async () => {
    const subjectId = newSubjectId()
    const t = Date.now() - 60_000
    await save(server, cookieSave({ subjectId, givenAt: t + 1000, preferences: allPreferences(false) }))
    await save(server, cookieSave({ subjectId, givenAt: t }))
    const { body, status } = await view(subjectId)
    expect(status).toBe(200)
    expect(body.subject).toEqual({
      id: subjectId,
      externalId: null,
      identityProvider: null,
      verified: false,
      createdAt: expect.any(String)
    })
    expect(body.consents.map((c: { givenAt: string }) => Date.parse(c.givenAt))).toEqual([t, t + 1000])
    expect(body.consents[1]).toMatchObject({
      type: "cookie_banner",
      domain: "example.com",
      isLatestPolicy: true,
      vendorChoice: null
    })
    expect(body.isValid).toBe(true)
    expect(body.subjectChoice.categories.marketing).toEqual({
      value: false,
      confirmedAt: new Date(t + 1000).toISOString()
    })
    expect(body.subjectVendorChoice).toBeNull()
  })

  it("answers a subject whose acts are all gone (purged) with its row and no consents", async () => {
    const subjectId = newSubjectId()
    const createdAt = Date.now() - 5_000
    await server.db().query(
      `INSERT INTO svc_subjects (id, tenant_id, external_id, identity_provider, verified, created_at, updated_at)
       VALUES (?, '', 'user-7', 'auth0', 1, ?, ?)`,
      [subjectId, createdAt, createdAt]
    )
    const { body, status } = await view(subjectId)
    expect(status).toBe(200)
    expect(body).toEqual({
      subject: {
        id: subjectId,
        externalId: "user-7",
        identityProvider: "auth0",
        verified: true,
        createdAt: new Date(createdAt).toISOString()
      },
      consents: [],
      isValid: false,
      subjectChoice: null,
      subjectVendorChoice: null
    })
  })

  describe("subjectChoice", () => {
    it("holds the latest receipt per category, and omits categories never confirmed", async () => {
      const subjectId = newSubjectId()
      const t = Date.now() - 10_000
      await save(
        server,
        cookieSave({
          subjectId,
          givenAt: t,
          receipts: { measurement: { value: true, confirmedAt: t }, marketing: { value: true, confirmedAt: t } }
        })
      )
      // a later act that re-confirms only marketing
      await save(
        server,
        cookieSave({ subjectId, givenAt: t + 5000, receipts: { marketing: { value: false, confirmedAt: t + 5000 } } })
      )
      const { body } = await view(subjectId)
      expect(body.subjectChoice).toEqual({
        categories: {
          measurement: { value: true, confirmedAt: new Date(t).toISOString() },
          marketing: { value: false, confirmedAt: new Date(t + 5000).toISOString() }
        }
      })
    })

    it("is null when the subject has no usable choice, and never filtered by ?type", async () => {
      await publish("privacy_policy", "pp-choice", "1")
      const legalOnly = newSubjectId()
      await save(server, { type: "privacy_policy", domain: "example.com", subjectId: legalOnly, givenAt: Date.now() })
      expect((await view(legalOnly)).body.subjectChoice).toBeNull()

      const both = newSubjectId()
      await save(server, { type: "privacy_policy", domain: "example.com", subjectId: both, givenAt: Date.now() })
      await save(server, cookieSave({ subjectId: both }))
      const filtered = await view(both, "?type=privacy_policy")
      expect(filtered.body.consents.map((c: { type: string }) => c.type)).toEqual(["privacy_policy"])
      expect(filtered.body.subjectChoice.categories.measurement.value).toBe(true)
    })
  })

  describe("?type= and isValid", () => {
    it("restricts the consents returned and how isValid is computed", async () => {
      await publish("dpa", "dpa-v1", "1")
      const subjectId = newSubjectId()
      await save(server, { type: "dpa", domain: "example.com", subjectId, givenAt: Date.now() - 1000 })
      await save(server, cookieSave({ subjectId }))
      expect((await view(subjectId, "?type=cookie_banner,dpa")).body).toMatchObject({ isValid: true })
      expect((await view(subjectId, "?type=cookie_banner")).body.consents).toHaveLength(1)
      // a requested type without a record is not valid
      const missing = await view(subjectId, "?type=cookie_banner,terms_and_conditions")
      expect(missing.body.isValid).toBe(false)
      expect(missing.body.consents).toHaveLength(1)
      // a new release outdates the dpa acceptance, not the cookie banner
      await publish("dpa", "dpa-v2", "2")
      const after = await view(subjectId)
      expect(after.body.isValid).toBe(false)
      expect(after.body.consents.find((c: { type: string }) => c.type === "dpa").isLatestPolicy).toBe(false)
      expect((await view(subjectId, "?type=cookie_banner")).body.isValid).toBe(true)
      expect((await view(subjectId, "?type=dpa")).body.isValid).toBe(false)
    })

    it("is false for a subject whose latest cookie-banner act is older than its validity", async () => {
      const subjectId = newSubjectId()
      await save(server, cookieSave({ subjectId, givenAt: Date.now() - 400 * DAY }))
      expect((await view(subjectId)).body.isValid).toBe(false)
      await save(server, cookieSave({ subjectId, givenAt: Date.now() - 10 * DAY }))
      expect((await view(subjectId)).body.isValid).toBe(true)
    })
  })

  describe("subjectVendorChoice", () => {
    it("follows rules 1 to 5 of 'Subject vendor choice'", async () => {
      const subjectId = newSubjectId()
      const t = Date.now() - 100_000
      // act 1 decides A and B; act 2 decides only A (silent on B and on the declared C)
      await save(
        server,
        cookieSave({
          subjectId,
          givenAt: t,
          preferences: { ...allPreferences(false), marketing: true },
          vendorChoice: { grants: { "vendor-a": true, "vendor-b": true }, confirmedAt: t }
        })
      )
      const act2 = { grants: { "vendor-a": false }, confirmedAt: t + 10_000 }
      const saved = await save(
        server,
        cookieSave({
          subjectId,
          givenAt: t + 10_000,
          receipts: { measurement: { value: true, confirmedAt: t + 10_000 } },
          vendorChoice: act2
        })
      )
      const expected = {
        grants: { "vendor-a": false, "vendor-b": true }, // 1: latest act decides A; 2: B keeps act 1's grant
        confirmedAt: new Date(t).toISOString(), // 3: oldest decision still standing (B, act 1)
        derived: { "vendor-c": true, "vendor-d": true, "vendor-n": true } // 5: C follows marketing, D measurement
      }
      expect(saved.body.subjectVendorChoice).toEqual(expected)
      expect((await view(subjectId)).body.subjectVendorChoice).toEqual(expected)
      // 4: the map is stored as sent; silence about B and C is not a decision
      const rows = await server.db().query(
        "SELECT vendor_choice FROM svc_consents WHERE subject_id = ? ORDER BY given_at",
        [subjectId]
      )
      expect(JSON.parse(rows[1]!.vendor_choice as string)).toEqual(act2)
      // a later act deciding both A and B moves confirmedAt forward
      await save(
        server,
        cookieSave({
          subjectId,
          givenAt: t + 20_000,
          vendorChoice: { grants: { "vendor-a": true, "vendor-b": false }, confirmedAt: t + 20_000 }
        })
      )
      const latest = (await view(subjectId)).body.subjectVendorChoice
      expect(latest.grants).toEqual({ "vendor-a": true, "vendor-b": false })
      expect(latest.confirmedAt).toBe(new Date(t + 20_000).toISOString())
    })
  })

  it("reads a subject in one statement, and one more for the current legal releases when it has legal acts", async () => {
    await publish("terms_and_conditions", "tc-count", "1")
    const small = newSubjectId()
    await save(server, cookieSave({ subjectId: small }))
    const large = newSubjectId()
    const t = Date.now() - 1_000_000
    for (let i = 0; i < 200; i++) {
      const body = i % 10 === 0
        ? { type: "terms_and_conditions", domain: "example.com", subjectId: large, givenAt: t + i }
        : cookieSave({
          subjectId: large,
          givenAt: t + i,
          vendorChoice: { grants: { [`v${i}`]: true }, confirmedAt: t + i }
        })
      expect((await save(server, body)).status).toBe(200)
    }
    const cost = async (subjectId: string) => {
      const before = server.statements()
      const { body, status } = await view(subjectId)
      expect(status).toBe(200)
      return { statements: server.statements() - before, consents: body.consents.length }
    }
    const one = await cost(small)
    const many = await cost(large)
    expect(one.consents).toBe(1)
    expect(many.consents).toBe(200)
    expect(one.statements).toBe(1)
    expect(many.statements).toBe(2)
  })
})
