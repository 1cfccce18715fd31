// The README's "Using svc as an Effect library" example, run as a user's own test would run it:
// `@effect/vitest` with `SvcTest.layer()` (svc's services on a migrated SQLite database in memory).
import { expect, it, layer } from "@effect/vitest"
import { Subjects } from "@svc/backend"
import { SvcTest } from "@svc/backend/testing"
import { Effect } from "effect"
import { mayMail, program, publishPrivacyPolicy, recordSignUp } from "../effect-library.js"

it.effect("the example program: publish, sign up, check, publish again", () =>
  Effect.gen(function*() {
    expect(yield* program).toEqual({ before: true, after: false })
  }).pipe(Effect.provide(SvcTest.layer())))

layer(SvcTest.layer())("sign-up and mailing job", (it) => {
  it.effect("a user who signed up under the current policy may be mailed; one who did not may not", () =>
    Effect.gen(function*() {
      const release = yield* publishPrivacyPolicy("1", "sha256-aa")
      const saved = yield* recordSignUp({ id: "user-a", ip: "198.51.100.23" })
      expect(saved.consentId).toMatch(/^cns_/)
      expect(yield* mayMail("user-a")).toBe(true)
      expect(yield* mayMail("user-b")).toBe(false)
      const subjects = yield* Subjects
      const view = yield* subjects.get(saved.subjectId)
      expect(view.subject).toMatchObject({ externalId: "user-a", verified: true })
      expect(view.consents.map((c) => [c.type, c.policyVersion, c.isLatestPolicy])).toEqual([
        ["privacy_policy", release.version, true]
      ])
    }))

  it.effect("a check that names no type fails with InvalidRequest in the error channel", () =>
    Effect.gen(function*() {
      const subjects = yield* Subjects
      const error = yield* Effect.flip(subjects.check({ externalId: "user-a", types: [] }))
      expect(error._tag).toBe("InvalidRequest")
    }))
})

it.effect("a sign-up before any privacy policy is published fails with InvalidRequest", () =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(recordSignUp({ id: "user-d" }))
    expect(error._tag).toBe("InvalidRequest")
    expect(error.message).toContain("No privacy_policy document is published")
  }).pipe(Effect.provide(SvcTest.layer())))
