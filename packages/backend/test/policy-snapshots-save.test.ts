import { SignJWT } from "jose"
import { beforeAll, describe, expect, it } from "vitest"
import { allPreferences, bearer, call, consentRows, cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { useCountingServer } from "./support/counting-server.js"
import { dialects } from "./support/dialects.js"
import { useServersOnOneDatabase } from "./support/shared-database.js"
import type { TestOptions } from "./support/server.js"

const API_KEY = "snapshots-key-0123456789abcdef-01234"
const SIGNING_KEY = "policy-snapshot-signing-key-0123456789"
const MINUTE = 60_000
const DAY = 86_400_000

const manifest: TestOptions["manifest"] = {
  policyRules: [
    { id: "eu", match: { countries: ["DE"] }, model: "opt-in", categories: ["measurement", "marketing"] },
    {
      id: "quiet",
      match: { countries: ["FR"] },
      model: "opt-in",
      categories: ["measurement"],
      proof: { storeIp: false, storeUserAgent: false }
    },
    { id: "unregulated", match: { countries: ["US"] }, model: "none", categories: [] },
    {
      id: "rest",
      match: { default: true },
      model: "opt-out",
      categories: ["measurement", "marketing", "functionality", "experience"]
    }
  ]
}

interface Mint {
  readonly policyId?: string
  readonly fingerprint?: string
  readonly issuedAt?: number // ms
  readonly ttlSeconds?: number
  readonly key?: string
  readonly issuer?: string
  readonly audience?: string
  readonly omit?: string
}

/** A policy snapshot token as `/init` mints one, with every part adjustable. */
const mint = (fingerprints: Record<string, string>, m: Mint = {}) => {
  const iat = Math.floor((m.issuedAt ?? Date.now()) / 1000)
  const policyId = m.policyId ?? "eu"
  const claims: Record<string, unknown> = {
    pid: policyId,
    fp: m.fingerprint ?? fingerprints[policyId] ?? "unknown",
    rev: "r1",
    cc: "DE",
    rg: null,
    gpc: false
  }
  if (m.omit !== undefined) delete claims[m.omit]
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(m.issuer ?? "svc")
    .setAudience(m.audience ?? "svc-policy")
    .setIssuedAt(iat)
    .setExpirationTime(iat + (m.ttlSeconds ?? 1800))
    .sign(new TextEncoder().encode(m.key ?? SIGNING_KEY))
}

describe.each(dialects)("policy snapshots on saves [%s]", (dialect) => {
  const server = useCountingServer(dialect, {
    apiKeys: [API_KEY],
    manifest,
    policySnapshot: { signingKey: SIGNING_KEY },
    observability: { requests: "all" }
  })
  let fingerprints: Record<string, string> = {}
  beforeAll(async () => {
    const { body } = await call(server, "GET", "/manifest")
    fingerprints = Object.fromEntries(
      body.policyPacks.map((p: { id: string; fingerprint: string }) => [p.id, p.fingerprint])
    )
  })
  const expectRefused = async (body: Record<string, unknown>, status: number, code: string, reason?: string) => {
    const answer = await save(server, body)
    expect(answer.status, JSON.stringify(answer.body)).toBe(status)
    expect(answer.body.cause).toEqual(reason === undefined ? { code } : { code, reason })
    expect(await consentRows(server, body.subjectId as string)).toHaveLength(0)
  }

  it("records a live save with the token from /init as snapshot_token, with the policy id and fingerprint", async () => {
    const init = await call(server, "GET", "/init?country=DE")
    const token = init.body.policySnapshotToken
    expect(typeof token).toBe("string")
    const body = cookieSave({
      policySnapshotToken: token,
      preferences: { ...allPreferences(false), measurement: true }
    })
    const answer = await save(server, body)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.runtimePolicySource).toBe("snapshot_token")
    const [row] = await consentRows(server, body.subjectId as string)
    expect(row).toMatchObject({
      policy_id: "eu",
      policy_fingerprint: fingerprints.eu,
      runtime_policy_source: "snapshot_token"
    })
    const event = server.requestEvents().find((e) =>
      e.route === "/subjects" && e["consent.decisionSource"] !== undefined
    )
    expect(event?.["consent.decisionSource"]).toBe("snapshot_token")
  })

  describe("late saves", () => {
    it("accepts a save replayed after expiry with givenAt kept, createdAt at receipt, as snapshot_token_replayed", async () => {
      const issuedAt = Date.now() - 3 * DAY
      const givenAt = issuedAt + 5 * MINUTE
      const body = cookieSave({
        givenAt,
        policySnapshotToken: await mint(fingerprints, { issuedAt }),
        preferences: { ...allPreferences(false), marketing: true }
      })
      const before = Date.now()
      const answer = await save(server, body)
      expect(answer.status, JSON.stringify(answer.body)).toBe(200)
      expect(answer.body).toMatchObject({
        runtimePolicySource: "snapshot_token_replayed",
        givenAt: new Date(givenAt).toISOString()
      })
      const [row] = await consentRows(server, body.subjectId as string)
      expect(Number(row!.given_at)).toBe(givenAt)
      expect(Number(row!.created_at)).toBeGreaterThanOrEqual(before)
      expect(row!.runtime_policy_source).toBe("snapshot_token_replayed")
      const events = server.requestEvents().filter((e) => e["consent.decisionSource"] === "snapshot_token_replayed")
      expect(events.length).toBeGreaterThan(0)
      // retrying the landed save returns the existing record
      expect((await save(server, body)).body).toEqual(answer.body)
    })

    it("rule 1: refuses a token whose signature, issuer or audience does not verify, or whose claims are incomplete", async () => {
      const tokens = [
        "not.a.jwt",
        await mint(fingerprints, { key: "another-signing-key-0123456789abcdefgh" }),
        await mint(fingerprints, { issuer: "someone" }),
        await mint(fingerprints, { audience: "svc-policy:other-tenant" }),
        await mint(fingerprints, { omit: "fp" }),
        await mint(fingerprints, { omit: "pid" })
      ]
      for (const policySnapshotToken of tokens) {
        await expectRefused(cookieSave({ policySnapshotToken }), 409, "POLICY_SNAPSHOT_INVALID")
      }
    })

    it("rule 2: givenAt must lie within the token's lifetime, with 10 minutes of slack", async () => {
      const issuedAt = Date.now() - 60 * MINUTE
      const token = await mint(fingerprints, { issuedAt, ttlSeconds: 1800 })
      const expiresAt = issuedAt + 30 * MINUTE
      for (const givenAt of [issuedAt - 9 * MINUTE, expiresAt + 9 * MINUTE]) {
        expect(
          (await save(server, cookieSave({ givenAt, policySnapshotToken: token, preferences: allPreferences(false) })))
            .status
        ).toBe(200)
      }
      for (const givenAt of [issuedAt - 11 * MINUTE, expiresAt + 11 * MINUTE]) {
        await expectRefused(
          cookieSave({ givenAt, policySnapshotToken: token, preferences: allPreferences(false) }),
          409,
          "POLICY_SNAPSHOT_EXPIRED"
        )
      }
    })

    it("rule 3: refuses a save arriving more than replayWindowSeconds after the token expired", async () => {
      const issuedAt = Date.now() - 8 * DAY
      const token = await mint(fingerprints, { issuedAt })
      await expectRefused(
        cookieSave({ givenAt: issuedAt + MINUTE, policySnapshotToken: token, preferences: allPreferences(false) }),
        409,
        "POLICY_SNAPSHOT_EXPIRED"
      )
      const inWindow = Date.now() - 6 * DAY
      const ok = await save(
        server,
        cookieSave({
          givenAt: inWindow + MINUTE,
          policySnapshotToken: await mint(fingerprints, { issuedAt: inWindow }),
          preferences: allPreferences(false)
        })
      )
      expect(ok.status).toBe(200)
    })

    it("rule 4: refuses with 422 STALE_POLICY policy-changed when the manifest no longer has the rule under that fingerprint", async () => {
      for (const token of [await mint(fingerprints, { policyId: "retired" }),
        await mint(fingerprints, { fingerprint: "old-fingerprint" })])
      {
        await expectRefused(cookieSave({ policySnapshotToken: token }), 422, "STALE_POLICY", "policy-changed")
      }
    })
  })

  it("refuses with 422 STALE_POLICY decision-mismatch a save granting a category the policy does not offer", async () => {
    const token = await mint(fingerprints, { policyId: "eu" })
    await expectRefused(
      cookieSave({ policySnapshotToken: token, preferences: allPreferences(true) }),
      422,
      "STALE_POLICY",
      "decision-mismatch"
    )
    await expectRefused(
      cookieSave({
        policySnapshotToken: token,
        preferences: allPreferences(false),
        receipts: { experience: { value: true, confirmedAt: Date.now() } }
      }),
      422,
      "STALE_POLICY",
      "decision-mismatch"
    )
    // refusing a category the policy does not offer is no mismatch
    expect((await save(server, cookieSave({ policySnapshotToken: token, preferences: allPreferences(false) }))).status)
      .toBe(200)
    // nor is any grant under a rule of model none, which asks nothing and grants everything
    const none = await mint(fingerprints, { policyId: "unregulated" })
    expect((await save(server, cookieSave({ policySnapshotToken: none, preferences: allPreferences(true) }))).status)
      .toBe(200)
  })

  it("refuses with 422 STALE_POLICY incomplete-inputs a cookie-banner save without a token, unless an API key records it", async () => {
    const { policySnapshotToken: _, ...body } = cookieSave()
    await expectRefused(body, 422, "STALE_POLICY", "incomplete-inputs")
    const byKey = await save(server, body, bearer(API_KEY))
    expect(byKey.status).toBe(200)
    expect(byKey.body.runtimePolicySource).toBeNull()
  })

  it("respects the matched rule's proof settings", async () => {
    const headers = { "x-forwarded-for": "203.0.113.77", "user-agent": "ProofBrowser/1.0" }
    const quiet = cookieSave({
      policySnapshotToken: await mint(fingerprints, { policyId: "quiet" }),
      preferences: allPreferences(false)
    })
    expect((await save(server, quiet, headers)).status).toBe(200)
    const [quietRow] = await consentRows(server, quiet.subjectId as string)
    expect(quietRow).toMatchObject({ ip_address: null, user_agent: null, policy_id: "quiet" })
    const eu = cookieSave({
      policySnapshotToken: await mint(fingerprints, { policyId: "eu" }),
      preferences: allPreferences(false)
    })
    expect((await save(server, eu, headers)).status).toBe(200)
    const [euRow] = await consentRows(server, eu.subjectId as string)
    expect(euRow).toMatchObject({
      ip_address: "203.0.113.0",
      user_agent: "ProofBrowser/1.0",
      policy_fingerprint: fingerprints.eu
    })
  })

  it("reports isLatestPolicy false for a record whose policy the manifest no longer has under that fingerprint", async () => {
    // a record made elsewhere under an older fingerprint of rule eu
    const subjectId = newSubjectId()
    await save(
      server,
      cookieSave({ subjectId, policySnapshotToken: await mint(fingerprints), preferences: allPreferences(false) })
    )
    await server.db().query("UPDATE svc_consents SET policy_fingerprint = ? WHERE subject_id = ?", ["older", subjectId])
    const view = await call(server, "GET", `/subjects/${subjectId}`)
    expect(view.body.consents[0].isLatestPolicy).toBe(false)
    expect(view.body.isValid).toBe(false)
  })
})

describe.each(dialects)("replay window 0 and stale retries [%s]", (dialect) => {
  const base = { apiKeys: [API_KEY], manifest }
  const [lenient, strict] = useServersOnOneDatabase(dialect, [
    { ...base, policySnapshot: { signingKey: SIGNING_KEY } },
    { ...base, policySnapshot: { signingKey: SIGNING_KEY, replayWindowSeconds: 0 } }
  ])
  let fingerprints: Record<string, string> = {}
  beforeAll(async () => {
    const { body } = await call(lenient!, "GET", "/manifest")
    fingerprints = Object.fromEntries(
      body.policyPacks.map((p: { id: string; fingerprint: string }) => [p.id, p.fingerprint])
    )
  })

  it("refuses every late save with replayWindowSeconds 0, and accepts live ones", async () => {
    const issuedAt = Date.now() - 31 * MINUTE
    const late = cookieSave({
      givenAt: issuedAt + MINUTE,
      policySnapshotToken: await mint(fingerprints, { issuedAt }),
      preferences: allPreferences(false)
    })
    const refused = await save(strict!, late)
    expect(refused.status).toBe(409)
    expect(refused.body.cause.code).toBe("POLICY_SNAPSHOT_EXPIRED")
    const live = cookieSave({ policySnapshotToken: await mint(fingerprints), preferences: allPreferences(false) })
    expect((await save(strict!, live)).body.runtimePolicySource).toBe("snapshot_token")
  })

  it("answers a retry of a landed save with the existing record even where its token is now refused", async () => {
    const issuedAt = Date.now() - DAY
    const body = cookieSave({
      givenAt: issuedAt + MINUTE,
      policySnapshotToken: await mint(fingerprints, { issuedAt }),
      preferences: allPreferences(false)
    })
    const landed = await save(lenient!, body)
    expect(landed.status).toBe(200)
    const retried = await save(strict!, body)
    expect(retried.status).toBe(200)
    expect(retried.body).toEqual(landed.body)
    // but a retry with another decision is still a conflict
    const changed = await save(strict!, { ...body, preferences: { ...allPreferences(false), marketing: true } })
    expect(changed.status).toBe(409)
    expect(changed.body.cause.code).toBe("CONFLICT")
  })
})
