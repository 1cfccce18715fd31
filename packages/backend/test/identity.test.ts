import { SqlClient } from "@effect/sql"
import { migrateDatabase, signIdentityToken } from "@svc/backend"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { ConsentsRepo } from "../src/consents/repository.js"
import { sqliteClientLayer } from "../src/database/sqlite-client.js"
import { withCapturedStatements } from "./support/captured-statements.js"
import { allPreferences, bearer, call, cookieSave, newSubjectId, save, subjectRow } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "identity-key-0123456789abcdef-012345"
const IDENTITY = { signingKey: "identity-signing-key-0123456789abcdef", issuer: "svc", audience: "svc-identity" }

describe.each(dialects)("identity links and lookups [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY], identityToken: { signingKey: IDENTITY.signingKey } })
  const patch = (subjectId: string, body: unknown, headers: Record<string, string> = {}) =>
    call(server, "PATCH", `/subjects/${subjectId}`, body, headers)
  const token = (externalId: string, identityProvider?: string, ttl?: number) =>
    signIdentityToken(IDENTITY, { externalId, ...(identityProvider === undefined ? {} : { identityProvider }) }, ttl)
  const linkState = async (subjectId: string) => {
    const row = await subjectRow(server, subjectId)
    return { externalId: row!.external_id, provider: row!.identity_provider, verified: Number(row!.verified) === 1 }
  }
  /** A subject linked unverified to `externalId` by its first save. */
  const unverifiedSubject = async (externalId: string) => {
    const subjectId = newSubjectId()
    expect((await save(server, cookieSave({ subjectId, externalSubjectId: externalId }))).status).toBe(200)
    return subjectId
  }
  const verifiedSubject = async (externalId: string, identityProvider?: string) => {
    const subjectId = newSubjectId()
    const body = cookieSave({
      subjectId,
      externalSubjectId: externalId,
      ...(identityProvider ? { identityProvider } : {})
    })
    expect((await save(server, body, bearer(API_KEY))).status).toBe(200)
    return subjectId
  }

  describe("PATCH /subjects/:id (state table)", () => {
    it("unverified + API key -> verified", async () => {
      const subjectId = await unverifiedSubject("u-1")
      const { body, status } = await patch(subjectId, { externalId: "u-1" }, bearer(API_KEY))
      expect(status).toBe(200)
      expect(body).toEqual({
        subject: { id: subjectId, externalId: "u-1", identityProvider: "external", verified: true }
      })
      expect(await linkState(subjectId)).toEqual({ externalId: "u-1", provider: "external", verified: true })
    })

    it("a wrong API key -> 401 UNAUTHORIZED, nothing changes (never a silent unverified link)", async () => {
      const subjectId = await unverifiedSubject("u-wrong")
      const { body, status } = await patch(subjectId, { externalId: "u-other" }, bearer("not-the-key"))
      expect(status).toBe(401)
      expect(body.cause).toEqual({ code: "UNAUTHORIZED" })
      expect(await linkState(subjectId)).toEqual({ externalId: "u-wrong", provider: "external", verified: false })
    })

    it("unverified + a token that verifies (sub, matching idp, not expired) -> verified", async () => {
      const plain = await unverifiedSubject("u-2")
      expect((await patch(plain, { externalId: "u-2", identityToken: await token("u-2") })).body.subject.verified).toBe(
        true
      )
      const withIdp = await unverifiedSubject("u-3")
      const answer = await patch(withIdp, {
        externalId: "u-3",
        identityProvider: "auth0",
        identityToken: await token("u-3", "auth0")
      })
      expect(answer.body.subject).toEqual({ id: withIdp, externalId: "u-3", identityProvider: "auth0", verified: true })
    })

    it("unverified + bad, expired, or other-identity token -> 401 IDENTITY_TOKEN_INVALID, nothing changes", async () => {
      const subjectId = await unverifiedSubject("u-4")
      const forged = await signIdentityToken({ ...IDENTITY, signingKey: "z".repeat(40) }, { externalId: "u-4" })
      const cases: ReadonlyArray<Record<string, unknown>> = [
        { externalId: "u-4", identityToken: "not-a-jwt" },
        { externalId: "u-4", identityToken: forged },
        { externalId: "u-4", identityToken: await token("u-4", undefined, -30) },
        { externalId: "u-4", identityToken: await token("someone-else") },
        { externalId: "u-4", identityProvider: "auth0", identityToken: await token("u-4", "okta") },
        {
          externalId: "u-4",
          identityToken: await signIdentityToken({ ...IDENTITY, audience: "other" }, { externalId: "u-4" })
        },
        {
          externalId: "u-4",
          identityToken: await signIdentityToken({ ...IDENTITY, issuer: "other" }, { externalId: "u-4" })
        }
      ]
      for (const body of cases) {
        const answer = await patch(subjectId, body)
        expect(answer.status, JSON.stringify(body)).toBe(401)
        expect(answer.body.cause).toEqual({ code: "IDENTITY_TOKEN_INVALID" })
        expect(await linkState(subjectId)).toEqual({ externalId: "u-4", provider: "external", verified: false })
      }
    })

    it("verified + an unverified request naming a different identity -> 409 IDENTITY_CONFLICT, unchanged", async () => {
      const subjectId = await verifiedSubject("u-5")
      for (const body of [{ externalId: "intruder" }, { externalId: "u-5", identityProvider: "okta" }, {
        externalId: "intruder",
        identityToken: await token("intruder")
      }]) {
        const answer = await patch(subjectId, body)
        expect(answer.status).toBe(409)
        expect(answer.body.cause).toEqual({ code: "IDENTITY_CONFLICT" })
      }
      expect(await linkState(subjectId)).toEqual({ externalId: "u-5", provider: "external", verified: true })
    })

    it("verified + the same identity again -> verified, no change", async () => {
      const subjectId = await verifiedSubject("u-6", "auth0")
      const before = await subjectRow(server, subjectId)
      for (const headers of [{}, bearer(API_KEY)]) {
        const answer = await patch(subjectId, { externalId: "u-6", identityProvider: "auth0" }, headers)
        expect(answer.status).toBe(200)
        expect(answer.body.subject).toEqual({
          id: subjectId,
          externalId: "u-6",
          identityProvider: "auth0",
          verified: true
        })
      }
      expect(await subjectRow(server, subjectId)).toEqual(before)
    })

    it("links a subject saved without an identity, unverified without proof", async () => {
      const subjectId = newSubjectId()
      await save(server, cookieSave({ subjectId }))
      const answer = await patch(subjectId, { externalId: "u-7" })
      expect(answer.body.subject).toEqual({
        id: subjectId,
        externalId: "u-7",
        identityProvider: "external",
        verified: false
      })
    })

    it("answers an unknown subject with 404 NOT_FOUND", async () => {
      const answer = await patch(newSubjectId(), { externalId: "u-8" }, bearer(API_KEY))
      expect(answer.status).toBe(404)
      expect(answer.body.cause.code).toBe("NOT_FOUND")
    })
  })

  describe("GET /subjects?externalId=", () => {
    it("lists verified links only, each subject with its consents, and needs an API key", async () => {
      const verified = await verifiedSubject("shopper-1")
      await unverifiedSubject("shopper-1")
      const list = await call(server, "GET", "/subjects?externalId=shopper-1", undefined, bearer(API_KEY))
      expect(list.status).toBe(200)
      expect(list.body.subjects).toHaveLength(1)
      expect(list.body.subjects[0]).toMatchObject({
        id: verified,
        externalId: "shopper-1",
        identityProvider: "external"
      })
      expect(list.body.subjects[0].consents).toHaveLength(1)
      expect(list.body.subjects[0].consents[0]).toMatchObject({ type: "cookie_banner", isLatestPolicy: true })
      expect((await call(server, "GET", "/subjects?externalId=nobody", undefined, bearer(API_KEY))).body).toEqual({
        subjects: []
      })
      const anonymous = await call(server, "GET", "/subjects?externalId=shopper-1")
      expect(anonymous.status).toBe(401)
      expect(anonymous.body.cause.code).toBe("UNAUTHORIZED")
    })

    it("gives each verified subject its own consents, oldest act first, and none of other subjects", async () => {
      const first = await verifiedSubject("shopper-2")
      const second = await verifiedSubject("shopper-2")
      const unverified = await unverifiedSubject("shopper-2")
      const other = await verifiedSubject("shopper-3")
      const givenAt = Date.now() - 60_000
      for (const subjectId of [first, second, unverified, other]) {
        for (const [offset, granted] of [[2_000, true], [1_000, false]] as const) {
          const body = cookieSave({ subjectId, givenAt: givenAt + offset, preferences: allPreferences(granted) })
          expect((await save(server, body)).status).toBe(200)
        }
      }
      const list = await call(server, "GET", "/subjects?externalId=shopper-2", undefined, bearer(API_KEY))
      expect(list.status).toBe(200)
      const byId = new Map<string, Array<{ givenAt: string }>>(
        list.body.subjects.map((s: { id: string; consents: Array<{ givenAt: string }> }) => [s.id, s.consents])
      )
      expect([...byId.keys()].sort()).toEqual([first, second].sort())
      for (const subjectId of [first, second]) {
        const times = byId.get(subjectId)!.map((c) => new Date(c.givenAt).getTime())
        // the two acts given a minute ago, oldest first, then the verifying save (given now)
        expect(times.slice(0, 2)).toEqual([givenAt + 1_000, givenAt + 2_000])
        expect(times).toHaveLength(3)
        expect(times[2]).toBeGreaterThan(givenAt + 2_000)
      }
    })

    it("lists an external id's 1,001 verified subjects (more than one statement's ids) with their consents", async () => {
      const now = Date.now()
      const ids = Array.from({ length: 1001 }, () => newSubjectId())
      await server.db().query(
        `INSERT INTO svc_subjects (id, tenant_id, external_id, identity_provider, verified, created_at, updated_at)
         VALUES ${ids.map(() => "(?, '', 'crowd-1', 'external', 1, ?, ?)").join(", ")}`,
        ids.flatMap((id) => [id, now, now])
      )
      const [first, last] = [ids[0]!, ids[1000]!]
      for (const subjectId of [first, last, last]) {
        expect((await save(server, cookieSave({ subjectId }))).status).toBe(200)
      }
      const list = await call(server, "GET", "/subjects?externalId=crowd-1", undefined, bearer(API_KEY))
      expect(list.status).toBe(200)
      const consentsOf = new Map<string, ReadonlyArray<unknown>>(
        list.body.subjects.map((s: { id: string; consents: ReadonlyArray<unknown> }) => [s.id, s.consents])
      )
      expect([...consentsOf.keys()].sort()).toEqual([...ids].sort())
      expect(consentsOf.get(first)).toHaveLength(1)
      expect(consentsOf.get(last)).toHaveLength(2)
      expect(ids.slice(1, 1000).every((id) => consentsOf.get(id)!.length === 0)).toBe(true)
    })
  })

  describe("GET /consents/check", () => {
    const check = (query: string, headers = bearer(API_KEY)) =>
      call(server, "GET", `/consents/check?${query}`, undefined, headers)

    it("reports hasConsent and isLatestPolicy for every requested type, from verified links only", async () => {
      await call(server, "PUT", "/legal-documents/privacy_policy/current", {
        version: "1",
        hash: "pp-a",
        effectiveDate: "2026-01-01"
      }, bearer(API_KEY))
      const subjectId = await verifiedSubject("checker")
      await save(server, { type: "privacy_policy", domain: "example.com", subjectId, givenAt: Date.now() })
      // a reject is still a recorded choice
      await save(server, cookieSave({ subjectId, preferences: allPreferences(false) }))
      // an unverified subject's consents never count
      const other = await unverifiedSubject("checker")
      await call(server, "PUT", "/legal-documents/dpa/current", {
        version: "1",
        hash: "dpa-a",
        effectiveDate: "2026-01-01"
      }, bearer(API_KEY))
      expect((await save(server, { type: "dpa", domain: "example.com", subjectId: other, givenAt: Date.now() })).status)
        .toBe(200)
      const answer = await check("externalId=checker&type=cookie_banner,privacy_policy,dpa,not_a_type")
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual({
        results: {
          cookie_banner: { hasConsent: true, isLatestPolicy: true },
          privacy_policy: { hasConsent: true, isLatestPolicy: true },
          dpa: { hasConsent: false, isLatestPolicy: false },
          not_a_type: { hasConsent: false, isLatestPolicy: false }
        }
      })
      await call(server, "PUT", "/legal-documents/privacy_policy/current", {
        version: "2",
        hash: "pp-b",
        effectiveDate: "2026-02-01"
      }, bearer(API_KEY))
      expect((await check("externalId=checker&type=privacy_policy")).body.results.privacy_policy).toEqual({
        hasConsent: true,
        isLatestPolicy: false
      })
    })

    it("skips unverified links, refuses an empty type list with 400, and needs an API key", async () => {
      await unverifiedSubject("ghost")
      expect((await check("externalId=ghost&type=cookie_banner")).body.results.cookie_banner).toEqual({
        hasConsent: false,
        isLatestPolicy: false
      })
      for (const query of ["externalId=ghost&type=", "externalId=ghost&type=,,", "externalId=ghost"]) {
        const answer = await check(query)
        expect(answer.status, query).toBe(400)
        expect(answer.body.cause.code).toBe("INVALID_REQUEST")
      }
      expect((await check("externalId=ghost&type=cookie_banner", {} as never)).status).toBe(401)
    })

    it("answers a check sent with types (the client's name) by naming the query it reads, type", async () => {
      const answer = await check("externalId=ghost&types=cookie_banner")
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({
        message: "Invalid request: type: is missing: the policy types to check, comma-separated " +
          "(type=cookie_banner,privacy_policy); the query is type, not types",
        cause: { code: "INVALID_REQUEST" }
      })
    })
  })
})

/**
 * Reads by external id on SQLite, seen in the plan of the statements the repository runs: the
 * subjects from the external-id index, then their consents by `subject_id`. Without statistics,
 * SQLite planned the former join from the tenant's time index and read every consent of the
 * tenant (~110 ms for 200,000); the rows asked for are the same either way, so only the plan shows it.
 */
describe("reads by external id on SQLite start from an index", () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-external-plan-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  /** The plan of each statement `read` runs, as EXPLAIN QUERY PLAN details. */
  const plansOf = (read: (repo: ConsentsRepo) => Effect.Effect<unknown, unknown>) => {
    const layer = Layer.orDie(sqliteClientLayer(join(dir, "plan.sqlite")))
    const program = Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrateDatabase({ _tag: "Layer", layer })
      const { statements } = yield* withCapturedStatements(Effect.flatMap(ConsentsRepo, read))
      return yield* Effect.forEach(statements, ([text, params]) =>
        Effect.map(
          sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params),
          (rows) => rows.map((row) => row.detail)
        ))
    })
    return Effect.runPromise(
      program.pipe(Effect.provide(ConsentsRepo.Default), Effect.provide(layer), Effect.orDie)
    )
  }
  const expectIndexedPlan = (plan: ReadonlyArray<string>) => {
    expect(plan).toContainEqual(expect.stringMatching(/^SEARCH s USING (COVERING )?INDEX svc_subjects_external /))
    expect(plan).toContainEqual(expect.stringMatching(/^SEARCH c USING INDEX svc_consents_subject \(subject_id=\?\)/))
    expect(plan.filter((step) => /^(SCAN|SEARCH) c\b/.test(step))).toHaveLength(1)
  }

  it("GET /subjects?externalId= (every consent of the linked subjects, read by their ids)", async () => {
    const plans = await plansOf((repo) => repo.listBySubjects({ tenantId: "", subjectIds: ["sub_a", "sub_b"] }))
    expect(plans).toHaveLength(1)
    expect(plans[0]).toContainEqual(
      expect.stringMatching(/^SEARCH c USING INDEX svc_consents_subject \(subject_id=\?\)/)
    )
    expect(plans[0]!.filter((step) => /^(SCAN|SEARCH) c\b/.test(step))).toHaveLength(1)
  })

  it("GET /consents/check (the consents of the types asked for)", async () => {
    const plans = await plansOf((repo) =>
      repo.listTypesByVerifiedExternalId({ tenantId: "", externalId: "shopper", types: ["cookie_banner", "dpa"] })
    )
    expect(plans).toHaveLength(1)
    expectIndexedPlan(plans[0]!)
  })
})
