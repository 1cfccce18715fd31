// svc as an Effect library: the public services with no HTTP in between, on every dialect, beside
// a running server on the same database, so that what the library writes HTTP reads (and back).
import {
  ConsentExports,
  Consents,
  Experiments,
  LegalDocuments,
  Retention,
  SvcConfigurationError,
  SvcServices,
  type SvcService,
  Subjects
} from "@svc/backend"
import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { SubjectId } from "@svc/schema"
import { Cause, Chunk, Effect, Exit, Layer, ManagedRuntime, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mayMail, publishPrivacyPolicy, recordSignUp } from "../../../examples/effect-library.js"
import { bearer, call, newSubjectId } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "library-key-0123456789abcdef-0123456"
const options = {
  apiKeys: [API_KEY],
  ipAddress: { masking: true },
  manifest: {
    policyRules: [{
      id: "us",
      match: { default: true as const },
      model: "opt-out" as const,
      categories: ["marketing" as const]
    }]
  }
}

/** JSON as HTTP answers it: `Date`s become ISO strings. */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value))

describe.each(dialects)("the public services [%s]", (dialect) => {
  const server = useServer(dialect, options)
  let runtime: ManagedRuntime.ManagedRuntime<SvcService, unknown>
  beforeAll(() => {
    runtime = ManagedRuntime.make(SvcServices.layer({ ...options, database: server.db().database }))
  })
  afterAll(() => runtime.dispose())
  const run = <A, E>(effect: Effect.Effect<A, E, SvcService>) => runtime.runPromise(effect)
  /** The error `effect` fails with: an expected (typed) one; a success or a defect fails the test. */
  const failure = <A, E>(effect: Effect.Effect<A, E, SvcService>) => run(Effect.flip(effect))
  const api = (method: string, path: string, body?: unknown) => call(server, method, path, body, bearer(API_KEY))

  it("publishes from a deploy script, records a sign-up, checks in a job: what HTTP answers too", async () => {
    const release = await run(publishPrivacyPolicy("1.0", `sha256-${dialect}-1`))
    expect((await call(server, "GET", "/legal-documents/privacy_policy/current")).body).toEqual({
      policy: asJson(release)
    })

    const saved = await run(recordSignUp({ id: "lib-user-1", ip: "203.0.113.77", userAgent: "Library/1.0" }))
    expect(saved).toMatchObject({ consentId: expect.stringMatching(/^cns_/), appliedPreferences: null })
    const stored = await server.db().query("SELECT ip_address, user_agent FROM svc_consents WHERE id = ?", [
      saved.consentId
    ])
    expect(stored).toEqual([{ ip_address: "203.0.113.0", user_agent: "Library/1.0" }])

    expect(await run(mayMail("lib-user-1"))).toBe(true)
    expect(await run(mayMail("lib-user-unknown"))).toBe(false)
    const check = await run(
      Effect.flatMap(Subjects, (s) => s.check({ externalId: "lib-user-1", types: ["privacy_policy", "dpa"] }))
    )
    expect(check).toEqual({
      results: {
        privacy_policy: { hasConsent: true, isLatestPolicy: true },
        dpa: { hasConsent: false, isLatestPolicy: false }
      }
    })
    expect((await api("GET", "/consents/check?externalId=lib-user-1&type=privacy_policy,dpa")).body).toEqual(check)

    // The subject, its link (verified: server code is trusted) and its records, as GET /subjects/:id has them.
    const view = await run(Effect.flatMap(Subjects, (s) => s.get(saved.subjectId)))
    expect(view.subject).toMatchObject({ externalId: "lib-user-1", verified: true })
    expect((await api("GET", `/subjects/${saved.subjectId}`)).body).toEqual(asJson(view))
    const list = await run(Effect.flatMap(Subjects, (s) => s.list({ externalId: "lib-user-1" })))
    expect((await api("GET", "/subjects?externalId=lib-user-1")).body).toEqual(asJson(list))

    // A new version: the user accepted an older one.
    await run(publishPrivacyPolicy("2.0", `sha256-${dialect}-2`))
    expect(await run(mayMail("lib-user-1"))).toBe(false)
    const releases = await run(Effect.flatMap(LegalDocuments, (d) => d.list("privacy_policy")))
    expect(releases.map((r) => r.version)).toEqual(["2.0", "1.0"])
  })

  it("records an act once: a replay answers the stored record, another decision is a Conflict", async () => {
    const act = {
      type: "cookie_banner" as const,
      domain: "example.com",
      subjectId: SubjectId.make(newSubjectId()),
      givenAt: new Date("2026-03-01T10:00:00Z"),
      preferences: { necessary: true, measurement: true, marketing: false, functionality: false, experience: false }
    }
    const first = await run(Effect.flatMap(Consents, (c) => c.record(act)))
    const again = await run(Effect.flatMap(Consents, (c) => c.record(act)))
    expect(again).toEqual(first)
    // The same act over HTTP is the same act.
    const viaHttp = await api("POST", "/subjects", { ...act, givenAt: act.givenAt.toISOString() })
    expect(viaHttp.body.consentId).toBe(first.consentId)
    const conflict = await failure(
      Effect.flatMap(Consents, (c) => c.record({ ...act, preferences: { ...act.preferences, marketing: true } }))
    )
    expect(conflict._tag).toBe("Conflict")
    const rows = await server.db().query("SELECT id FROM svc_consents WHERE subject_id = ?", [act.subjectId])
    expect(rows).toHaveLength(1)
  })

  it("applies the visitor's Global Privacy Control signal as POST /subjects does with Sec-GPC: 1", async () => {
    const act = (gpc: boolean) =>
      Effect.flatMap(Consents, (c) =>
        c.record({
          type: "cookie_banner",
          domain: "example.com",
          subjectId: SubjectId.make(newSubjectId()),
          givenAt: new Date(),
          policyId: "us",
          preferences: { necessary: true, measurement: false, marketing: true, functionality: false, experience: false }
        }, { gpc, country: "US" }))
    const withGpc = await run(act(true))
    expect(withGpc).toMatchObject({ gpcOverridden: ["marketing"], appliedPreferences: { marketing: false } })
    const without = await run(act(false))
    expect(without.gpcOverridden).toBeUndefined()
    expect(without.appliedPreferences).toMatchObject({ marketing: true })
  })

  it("refuses bad input with typed errors, never a defect", async () => {
    const bad = await failure(Effect.flatMap(Consents, (c) =>
      c.record({
        type: "cookie_banner",
        domain: "example.com",
        subjectId: SubjectId.make(newSubjectId()),
        givenAt: new Date()
      })))
    expect(bad).toMatchObject({ _tag: "InvalidRequest", message: expect.stringContaining("preferences") })
    const notPublishable = await failure(
      Effect.flatMap(
        LegalDocuments,
        (d) => d.publish("cookie_banner", { version: "1", hash: "h", effectiveDate: new Date() })
      )
    )
    expect(notPublishable._tag).toBe("InvalidRequest")
    const badDate = await failure(
      Effect.flatMap(
        LegalDocuments,
        (d) => d.publish("dpa", { version: "1", hash: "h", effectiveDate: new Date(Number.NaN) })
      )
    )
    expect(badDate._tag).toBe("InvalidRequest")
    expect((await failure(Effect.flatMap(Subjects, (s) => s.get(newSubjectId()))))._tag).toBe("NotFound")
    expect((await failure(Effect.flatMap(Subjects, (s) => s.check({ externalId: "x", types: [] }))))._tag).toBe(
      "InvalidRequest"
    )
    expect((await failure(Effect.flatMap(LegalDocuments, (d) => d.current("dpa_none"))))._tag).toBe("NotFound")
    expect((await failure(Effect.flatMap(Subjects, (s) => s.link("not-a-subject-id", { externalId: "u" }))))._tag)
      .toBe("InvalidRequest")
    expect(
      (await failure(Effect.flatMap(Experiments, (e) => e.summary("exp", { from: "2026-02-01", to: "2026-01-01" }))))
        ._tag
    ).toBe("InvalidRequest")
  })

  it("links, exports and erases a subject", async () => {
    const subjectId = newSubjectId()
    expect(
      (await api("POST", "/subjects", {
        type: "cookie_banner",
        domain: "example.com",
        subjectId,
        givenAt: Date.now(),
        preferences: { necessary: true, measurement: false, marketing: false, functionality: false, experience: false }
      })).status
    ).toBe(200)
    const linked = await run(Effect.flatMap(Subjects, (s) => s.link(subjectId, { externalId: "lib-user-2" })))
    expect(linked).toEqual({ id: subjectId, externalId: "lib-user-2", identityProvider: "external", verified: true })
    const exported = await run(Effect.flatMap(Subjects, (s) => s.export({ externalId: "lib-user-2" })))
    expect(exported.subjects.map((s) => [s.subjectId, s.records.length])).toEqual([[subjectId, 1]])
    expect(exported.subjects[0]?.identityLinks).toEqual([
      { externalId: "lib-user-2", identityProvider: "external", verified: true }
    ])
    const erased = await run(Effect.flatMap(Subjects, (s) => s.erase({ externalId: "lib-user-2" })))
    expect(erased).toMatchObject({ subjects: 1, recordsKeptAsAnonymousProof: 1 })
    expect((await api("GET", `/subjects/${subjectId}`)).status).toBe(404)
    expect(await run(Effect.flatMap(Subjects, (s) => s.erase(subjectId)))).toMatchObject({ subjects: 0 })
  })

  it("exports a period as GET /consents/export does, and refuses a bad query with InvalidRequest", async () => {
    const subjectId = newSubjectId()
    const givenAt = Date.parse("2026-03-10T12:00:00Z")
    expect(
      (await api("POST", "/subjects", {
        type: "cookie_banner",
        domain: `exports-${dialect}.example`,
        subjectId,
        givenAt,
        preferences: { necessary: true, measurement: true, marketing: false, functionality: false, experience: false }
      })).status
    ).toBe(200)
    const query = { from: "2026-03-10", to: "2026-03-10", domain: `exports-${dialect}.example` }
    const text = await run(
      Effect.flatMap(ConsentExports, (exports) => exports.stream(query)).pipe(
        Effect.flatMap((chunks) => Stream.runCollect(chunks)),
        Effect.map((chunks) => Chunk.join(chunks, ""))
      )
    )
    const lines = text.trim().split("\n").map((line) => JSON.parse(line))
    expect(lines).toHaveLength(1)
    expect(JSON.stringify(lines[0])).toContain(subjectId)
    const http = await fetch(
      `${server.url()}/consents/export?from=2026-03-10&to=2026-03-10&domain=exports-${dialect}.example`,
      { headers: { authorization: `Bearer ${API_KEY}` } }
    )
    expect(text).toBe(await http.text())
    const csvWithProofs = await failure(
      Effect.flatMap(ConsentExports, (exports) => exports.stream({ ...query, format: "csv", proofs: true }))
    )
    expect(csvWithProofs._tag).toBe("InvalidRequest")
    const tooLong = await failure(
      Effect.flatMap(ConsentExports, (exports) => exports.stream({ from: "2025-01-01", to: "2026-03-10" }))
    )
    expect(tooLong).toMatchObject({ _tag: "InvalidRequest", message: expect.stringContaining("366 days") })
  })

  it("summarises an experiment and runs retention", async () => {
    for (const [arm, action] of [["A", "accept_all"], ["A", "reject_all"], ["B", "accept_all"]] as const) {
      await run(Effect.flatMap(Consents, (c) =>
        c.record({
          type: "cookie_banner",
          domain: "lib.example",
          subjectId: SubjectId.make(newSubjectId()),
          givenAt: new Date("2026-04-02T12:00:00Z"),
          preferences: {
            necessary: true,
            measurement: false,
            marketing: false,
            functionality: false,
            experience: false
          },
          experiment: { id: "lib-exp", arm },
          action,
          surface: "banner"
        })))
    }
    const summary = await run(
      Effect.flatMap(
        Experiments,
        (e) => e.summary("lib-exp", { from: new Date("2026-04-01T00:00:00Z"), to: "2026-04-30" })
      )
    )
    expect(summary.arms.map((a) => [a.arm, a.choices, a.byAction.accept_all])).toEqual([["A", 2, 1], ["B", 1, 1]])
    expect(summary.from).toBe("2026-04-01T00:00:00.000Z")
    expect((await api("GET", "/experiments/lib-exp/summary?from=2026-04-01&to=2026-04-30")).body).toEqual(summary)
  })

  it("runs retention: a cookie-banner choice past its validity expires once", async () => {
    // Older than anything else in this database: a run as of 2019-06-01 expires this act alone.
    const subjectId = SubjectId.make(newSubjectId())
    await run(Effect.flatMap(Consents, (c) =>
      c.record({
        type: "cookie_banner",
        domain: "example.com",
        subjectId,
        givenAt: new Date("2018-01-01T00:00:00Z"),
        preferences: { necessary: true, measurement: true, marketing: true, functionality: true, experience: true }
      })))
    const expiredAt = () =>
      server.db().query("SELECT expired_at FROM svc_consents WHERE subject_id = ?", [subjectId]).then((rows) =>
        rows.map((row) => row.expired_at === null ? null : Number(row.expired_at))
      )
    expect(await expiredAt()).toEqual([null])
    const asOf = Date.parse("2019-06-01T00:00:00Z")
    expect(await run(Effect.flatMap(Retention, (r) => r.runOnce(asOf)))).toMatchObject({ choicesExpired: 1 })
    expect(await expiredAt()).toEqual([asOf])
    expect(await run(Effect.flatMap(Retention, (r) => r.runOnce(asOf)))).toMatchObject({ choicesExpired: 0 })
  })
})

describe("SvcServices.layer", () => {
  it("shares the app's SqlClient through database: { layer }", async () => {
    // One in-memory SQLite: had svc opened a client of its own, the app's would see no svc tables.
    const AppSql = SqliteClient.layer({ filename: ":memory:" })
    const Live = Layer.merge(AppSql, SvcServices.layer({ database: { layer: AppSql } }, { migrate: true }))
    const program = Effect.gen(function*() {
      const consents = yield* Consents
      const saved = yield* consents.record({
        type: "cookie_banner",
        domain: "example.com",
        subjectId: SubjectId.make(newSubjectId()),
        givenAt: new Date(),
        preferences: { necessary: true, measurement: false, marketing: false, functionality: false, experience: false }
      })
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ readonly id: string }>`SELECT id FROM svc_consents`
      return [saved.consentId, rows.map((row) => row.id)] as const
    })
    const [consentId, stored] = await Effect.runPromise(Effect.provide(program, Live))
    expect(stored).toEqual([consentId])
  })

  it("fails with SvcConfigurationError listing every problem when the options are invalid", async () => {
    const layer = SvcServices.layer({ database: { dialect: "sqlite", url: ":memory:" }, telemetry: { prometheus: {} } })
    const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(layer)))
    const error = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
    expect(error?._tag).toBe("Some")
    const value = error?._tag === "Some" ? error.value : undefined
    expect(value).toBeInstanceOf(SvcConfigurationError)
    expect(value instanceof SvcConfigurationError ? value.issues : []).toEqual([
      expect.stringContaining("telemetry.prometheus: needs apiKeys")
    ])
  })
})
