import { type DatabaseError, describeIssues, type IdentityConflict, InvalidRequest, type NotFound } from "@svc/api"
import type { ConsentCheck, ErasureResult, SubjectExport, SubjectList, SubjectView } from "@svc/schema"
import { LinkIdentityRequest, SubjectId } from "@svc/schema"
import { Effect, ParseResult, Schema } from "effect"
import { ConsentReads } from "../consents/reads.js"
import { SubjectErasure } from "../erasure/subject-erasure.js"
import { SubjectExports } from "../records/subject-exports.js"
import { IdentityLinks, type LinkedSubject } from "../identity/identity-links.js"

/**
 * A subject by its id (`sub_…`), or every subject verifiably linked to a user of the app.
 *
 * @example
 * ```ts
 * import { Subjects, type SubjectTarget } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A support tool's erase button takes either a subject id (from a cookie) or an account id.
 * const targetOf = (input: string): SubjectTarget => input.startsWith("sub_") ? input : { externalId: input }
 * export const erase = (input: string) => Effect.flatMap(Subjects, (subjects) => subjects.erase(targetOf(input)))
 * ```
 */
export type SubjectTarget = string | { readonly externalId: string }

/** A link asked for by server code: the subject's id and the identity (no token: server code is trusted). */
const decodeLink = Schema.decodeUnknown(
  Schema.Struct({ id: SubjectId, ...LinkIdentityRequest.fields }).pipe(Schema.omit("identityToken")),
  { errors: "all" }
)

/**
 * Subjects and what they consented to, for server code with no HTTP in between: the answers of
 * `GET /subjects/:id`, `GET /subjects?externalId=`, `GET /consents/check`, `PATCH /subjects/:id`,
 * `DELETE /subjects…` and `GET /subjects/…/export`, from the same services those routes call.
 * Server code is trusted: a link made here is verified, as one made with an API key.
 *
 * @example
 * ```ts
 * import { Subjects } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // In a mailing job: send only to users who accepted the current privacy policy.
 * const mayMail = (userId: string) =>
 *   Effect.gen(function*() {
 *     const subjects = yield* Subjects
 *     const { results } = yield* subjects.check({ externalId: userId, types: ["privacy_policy"] })
 *     return results.privacy_policy?.isLatestPolicy === true
 *   })
 * ```
 */
export class Subjects extends Effect.Service<Subjects>()("@svc/backend/Subjects", {
  dependencies: [ConsentReads.Default, IdentityLinks.Default, SubjectErasure.Default, SubjectExports.Default],
  effect: Effect.gen(function*() {
    const reads = yield* ConsentReads
    const links = yield* IdentityLinks
    const erasure = yield* SubjectErasure
    const exports = yield* SubjectExports

    /** `GET /subjects/:id`: the subject, its records (of `types` only, when given) and whether they are valid. */
    const get = (
      id: string,
      options: { readonly types?: ReadonlyArray<string> | undefined } = {}
    ): Effect.Effect<SubjectView, NotFound | DatabaseError> => reads.view(id, options.types)

    /** `GET /subjects?externalId=`: the subjects verifiably linked to a user, with their records. */
    const list = (query: { readonly externalId: string }): Effect.Effect<SubjectList, DatabaseError> =>
      reads.listByExternalId(query.externalId)

    /**
     * `GET /consents/check`: per type, whether the user has a record of it (`hasConsent`, a reject
     * included) and whether one is on the latest policy (`isLatestPolicy`). 1 to 50 types.
     */
    const check = (
      query: { readonly externalId: string; readonly types: ReadonlyArray<string> }
    ): Effect.Effect<ConsentCheck, InvalidRequest | DatabaseError> => reads.check(query.externalId, query.types)

    /** `PATCH /subjects/:id` with an API key: links the subject to a user, verified. */
    const link = (
      id: string,
      identity: { readonly externalId: string; readonly identityProvider?: string | undefined }
    ): Effect.Effect<LinkedSubject, NotFound | IdentityConflict | InvalidRequest | DatabaseError> =>
      decodeLink({ ...identity, id }).pipe(
        Effect.mapError((error) =>
          new InvalidRequest({ message: describeIssues(ParseResult.ArrayFormatter.formatErrorSync(error)) })
        ),
        Effect.flatMap(({ id, ...body }) =>
          links.link(id, body, {
            apiKey: "valid",
            ipAddress: null,
            userAgent: undefined,
            gpc: false,
            country: null,
            logFields: undefined
          })
        ),
        // Trusted server code sends no API key or token that could fail to verify.
        Effect.catchTags({ Unauthorized: Effect.die, IdentityTokenInvalid: Effect.die })
      )

    /**
     * Erasure (GDPR Art. 17), as `DELETE /subjects/:id` or `DELETE /subjects?externalId=`:
     * personal data removed, records kept as anonymous proof. Nothing to erase answers zero counts.
     */
    const erase = (target: SubjectTarget): Effect.Effect<ErasureResult, DatabaseError> =>
      typeof target === "string" ? erasure.eraseSubject(target) : erasure.eraseByExternalId(target.externalId)

    /**
     * Access (GDPR Art. 15), as `GET /subjects/:id/export` or `GET /subjects/export?externalId=`:
     * identity links and ISO/IEC TS 27560-style records. An erased id answers its anonymous proof.
     * `proofs: true` adds each record's transparency-log inclusion proof (`logProof`), as `proofs=true`.
     */
    const exportOf = (
      target: SubjectTarget,
      options: { readonly proofs?: boolean | undefined } = {}
    ): Effect.Effect<SubjectExport, NotFound | DatabaseError> =>
      typeof target === "string"
        ? exports.bySubject(target, options)
        : exports.byExternalId(target.externalId, options)

    return { get, list, check, link, erase, export: exportOf } as const
  })
}) {}
