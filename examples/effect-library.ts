import { Consents, LegalDocuments, Subjects, SvcServices } from "@svc/backend"
import { SubjectId } from "@svc/schema"
import { Clock, Effect } from "effect"
import { randomUUID } from "node:crypto"

/** svc's services on the app's database; `database: { layer }` would share the app's own `SqlClient`. */
export const SvcLive = SvcServices.layer({ database: { dialect: "sqlite", url: "./svc.db" } }, { migrate: true })

/** A deploy script: the privacy policy the site now links to becomes the current one. */
export const publishPrivacyPolicy = (version: string, hash: string) =>
  Effect.gen(function*() {
    const documents = yield* LegalDocuments
    const now = yield* Clock.currentTimeMillis
    return yield* documents.publish("privacy_policy", { version, hash, effectiveDate: new Date(now) })
  })

/** A sign-up handler: the user ticked "I accept the privacy policy" in the app's own form. */
export const recordSignUp = (user: { readonly id: string; readonly ip?: string; readonly userAgent?: string }) =>
  Effect.gen(function*() {
    const consents = yield* Consents
    const now = yield* Clock.currentTimeMillis
    return yield* consents.record({
      type: "privacy_policy",
      domain: "app.example.com",
      subjectId: SubjectId.make(`sub_${randomUUID().replaceAll("-", "")}`),
      givenAt: new Date(now),
      // Linked to the app's user id, verified: server code is trusted.
      externalSubjectId: user.id
    }, { ipAddress: user.ip, userAgent: user.userAgent })
  })

/** A mailing job: only users who accepted the current privacy policy get the newsletter. */
export const mayMail = (userId: string) =>
  Effect.gen(function*() {
    const subjects = yield* Subjects
    const { results } = yield* subjects.check({ externalId: userId, types: ["privacy_policy"] })
    return results.privacy_policy?.isLatestPolicy === true
  })

/** The three together: `Effect.runPromise(Effect.provide(program, SvcLive))`. */
export const program = Effect.gen(function*() {
  yield* publishPrivacyPolicy("2026-01", "sha256-4f2a9c")
  yield* recordSignUp({ id: "user-1", ip: "203.0.113.7", userAgent: "Mozilla/5.0" })
  const before = yield* mayMail("user-1")
  // A new version is published: user-1 accepted an older one and must accept again.
  yield* publishPrivacyPolicy("2026-02", "sha256-8b1d07")
  const after = yield* mayMail("user-1")
  return { before, after }
})
