import { HttpApiSchema } from "@effect/platform"
import { ErrorStatus, StalePolicyReason, type ErrorCode } from "@svc/schema"
import { ParseResult, Schema } from "effect"

/*
 * One class per code of the spec's "Errors" table. Services fail with these classes; the API
 * encodes each one as the spec's body `{ message, cause: { code, reason? } }` (no `_tag` on the
 * wire) and the derived client decodes the body back into the class, picked by `cause.code`.
 */

/**
 * `400 INVALID_REQUEST`: the input does not decode or is not acceptable; the message names each
 * offending field. Re-exported by `@svc/backend`, whose services fail with it.
 *
 * @example
 * ```ts
 * import { Experiments } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A dashboard passes on the dates a user typed; a bad one is shown back to the user, not thrown.
 * const summaryOrProblem = (from: string, to: string) =>
 *   Effect.flatMap(Experiments, (experiments) => experiments.summary("banner-copy", { from, to })).pipe(
 *     Effect.catchTag("InvalidRequest", (error) => Effect.succeed(`Check the dates: ${error.message}`))
 *   )
 * ```
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  message: Schema.String
}) {
  static readonly code = "INVALID_REQUEST"
}
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { message: Schema.String }) {
  static readonly code = "UNAUTHORIZED"
}
export class IdentityTokenInvalid extends Schema.TaggedError<IdentityTokenInvalid>()("IdentityTokenInvalid", {
  message: Schema.String
}) {
  static readonly code = "IDENTITY_TOKEN_INVALID"
}
/**
 * `404 NOT_FOUND`: the subject, legal document or delivery named does not exist (for a subject:
 * never saved, or erased). Re-exported by `@svc/backend`.
 *
 * @example
 * ```ts
 * import { Subjects } from "@svc/backend"
 * import { Effect, Option } from "effect"
 *
 * // A subject id from a cookie that svc has never seen (or has erased) simply has no choices yet.
 * const choicesOf = (subjectId: string) =>
 *   Effect.flatMap(Subjects, (subjects) => subjects.get(subjectId)).pipe(
 *     Effect.map(Option.some),
 *     Effect.catchTag("NotFound", () => Effect.succeed(Option.none()))
 *   )
 * ```
 */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {
  static readonly code = "NOT_FOUND"
}
/**
 * `409 CONFLICT`: what was sent contradicts what is stored (the same act with another decision, a
 * legal-document hash published under another version); the stored fact stands. Re-exported by
 * `@svc/backend`.
 *
 * @example
 * ```ts
 * import { LegalDocuments } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A deploy script run again with the same text under a new version number: the earlier release stands.
 * const release = { version: "2026-02", hash: "9f2c4e1ab7d3", effectiveDate: new Date("2026-02-01") }
 * const publish = Effect.flatMap(LegalDocuments, (documents) => documents.publish("privacy_policy", release)).pipe(
 *   Effect.catchTag("Conflict", (error) => Effect.logWarning(`privacy policy not published: ${error.message}`))
 * )
 * ```
 */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", { message: Schema.String }) {
  static readonly code = "CONFLICT"
}
/**
 * `409 SUBJECT_CONFLICT`: the subject id is held by another tenant of the same database. Re-exported
 * by `@svc/backend`.
 *
 * @example
 * ```ts
 * import { Consents } from "@svc/backend"
 * import { SubjectId } from "@svc/schema"
 * import { Effect } from "effect"
 * import { randomUUID } from "node:crypto"
 *
 * const accept = (subjectId: string) =>
 *   Effect.flatMap(Consents, (consents) =>
 *     consents.record({ type: "privacy_policy", domain: "shop.example.com", subjectId: SubjectId.make(subjectId),
 *       givenAt: new Date() }))
 * // The id is another tenant's: the visitor's browser gets a fresh one and the save is made with it.
 * const save = (subjectId: string) =>
 *   accept(subjectId).pipe(Effect.catchTag("SubjectConflict", () => accept(`sub_${randomUUID().replaceAll("-", "")}`)))
 * ```
 */
export class SubjectConflict extends Schema.TaggedError<SubjectConflict>()("SubjectConflict", {
  message: Schema.String
}) {
  static readonly code = "SUBJECT_CONFLICT"
}
/**
 * `409 IDENTITY_CONFLICT`: the subject is verifiably linked to another user, or its link changed
 * while this one was being made. Re-exported by `@svc/backend`.
 *
 * @example
 * ```ts
 * import { Subjects } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // Two sign-ins racing on one browser's subject: the one that lost retries once the other has landed.
 * const link = (subjectId: string, userId: string) =>
 *   Effect.flatMap(Subjects, (subjects) => subjects.link(subjectId, { externalId: userId })).pipe(
 *     Effect.retry({ while: (error) => error._tag === "IdentityConflict", times: 2 })
 *   )
 * ```
 */
export class IdentityConflict extends Schema.TaggedError<IdentityConflict>()("IdentityConflict", {
  message: Schema.String
}) {
  static readonly code = "IDENTITY_CONFLICT"
}
/**
 * `409 POLICY_SNAPSHOT_EXPIRED`: the save's policy snapshot token is past its lifetime and replay
 * window (or `givenAt` lies outside it): the visitor must be asked again. Re-exported by `@svc/backend`.
 *
 * @example
 * ```ts
 * import { Consents } from "@svc/backend"
 * import type { SaveConsentRequest } from "@svc/schema"
 * import { Effect } from "effect"
 *
 * // A save replayed by a phone that was offline for weeks: too late to prove, so the banner asks again.
 * const relay = (save: SaveConsentRequest) =>
 *   Effect.flatMap(Consents, (consents) => consents.record(save)).pipe(
 *     Effect.map((saved) => ({ askAgain: false, consentId: saved.consentId })),
 *     Effect.catchTag("PolicySnapshotExpired", () => Effect.succeed({ askAgain: true, consentId: null }))
 *   )
 * ```
 */
export class PolicySnapshotExpired extends Schema.TaggedError<PolicySnapshotExpired>()("PolicySnapshotExpired", {
  message: Schema.String
}) {
  static readonly code = "POLICY_SNAPSHOT_EXPIRED"
}
/**
 * `409 POLICY_SNAPSHOT_INVALID`: the policy snapshot token does not verify (altered, signed with
 * another key, or for another tenant), or this backend does not sign snapshots. Re-exported by
 * `@svc/backend`.
 *
 * @example
 * ```ts
 * import { Consents } from "@svc/backend"
 * import type { SaveConsentRequest } from "@svc/schema"
 * import { Effect } from "effect"
 *
 * // Tokens that do not verify are worth a warning: after a key rotation they come from stale pages.
 * const relay = (save: SaveConsentRequest) =>
 *   Effect.flatMap(Consents, (consents) => consents.record(save)).pipe(
 *     Effect.tapErrorTag("PolicySnapshotInvalid", (error) =>
 *       Effect.logWarning("policy snapshot token refused", { domain: save.domain, reason: error.message }))
 *   )
 * ```
 */
export class PolicySnapshotInvalid extends Schema.TaggedError<PolicySnapshotInvalid>()("PolicySnapshotInvalid", {
  message: Schema.String
}) {
  static readonly code = "POLICY_SNAPSHOT_INVALID"
}
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  message: Schema.String
}) {
  static readonly code = "PAYLOAD_TOO_LARGE"
}
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  message: Schema.String
}) {
  static readonly code = "UNSUPPORTED_MEDIA_TYPE"
}
/**
 * `422 STALE_POLICY`: the save cannot be proven under the current policy; `reason` says why
 * (`policy-changed`, `decision-mismatch`, `incomplete-inputs`). Re-exported by `@svc/backend`.
 *
 * @example
 * ```ts
 * import { Consents } from "@svc/backend"
 * import type { SaveConsentRequest } from "@svc/schema"
 * import { Effect } from "effect"
 *
 * // The rule changed after the banner was shown: show it again; any other reason is a bug to surface.
 * const relay = (save: SaveConsentRequest) =>
 *   Effect.flatMap(Consents, (consents) => consents.record(save)).pipe(
 *     Effect.map((saved) => ({ showBanner: false, consentId: saved.consentId })),
 *     Effect.catchTag("StalePolicy", (error) =>
 *       error.reason === "policy-changed" ? Effect.succeed({ showBanner: true, consentId: null }) : Effect.fail(error))
 *   )
 * ```
 */
export class StalePolicy extends Schema.TaggedError<StalePolicy>()("StalePolicy", {
  message: Schema.String,
  reason: StalePolicyReason
}) {
  static readonly code = "STALE_POLICY"
}
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", { message: Schema.String }) {
  static readonly code = "RATE_LIMITED"
}
/**
 * `503 DATABASE_ERROR`: the database did not answer or refused (a failover, a restart). The same
 * call may be retried: a save that did commit answers its stored record. Re-exported by `@svc/backend`.
 *
 * @example
 * ```ts
 * import { Subjects } from "@svc/backend"
 * import { Effect, Schedule } from "effect"
 *
 * // A mailing job waits out a database failover before it gives up on a user.
 * const mayMail = (userId: string) =>
 *   Effect.flatMap(Subjects, (subjects) => subjects.check({ externalId: userId, types: ["privacy_policy"] })).pipe(
 *     Effect.retry({
 *       while: (error) => error._tag === "DatabaseError",
 *       schedule: Schedule.exponential("500 millis"),
 *       times: 5
 *     }),
 *     Effect.map(({ results }) => results.privacy_policy?.hasConsent === true)
 *   )
 * ```
 */
export class DatabaseError extends Schema.TaggedError<DatabaseError>()("DatabaseError", { message: Schema.String }) {
  static readonly code = "DATABASE_ERROR"
}
/** `GET /health/ready`: the instance cannot serve consent now; the message says why. */
export class NotReady extends Schema.TaggedError<NotReady>()("NotReady", { message: Schema.String }) {
  static readonly code = "NOT_READY"
}
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", { message: Schema.String }) {
  static readonly code = "INTERNAL_ERROR"
}

interface ErrorClass<A, Fields> {
  new(fields: Fields): A
  readonly code: ErrorCode
  readonly prototype: A
}

const bodyOf = (code: string) =>
  Schema.Struct({ message: Schema.String, cause: Schema.Struct({ code: Schema.Literal(code) }) })

/** The wire schema of an error class: the spec's body on the wire, the class instance in code. */
const wire = <A extends { readonly message: string }>(cls: ErrorClass<A, { readonly message: string }>) => {
  const body = bodyOf(cls.code)
  return Schema.transform(body, Schema.declare((u): u is A => u instanceof cls), {
    strict: true,
    decode: (b) => new cls({ message: b.message }),
    encode: (e) => ({ message: e.message, cause: { code: cls.code } }) as typeof body.Type
  }).annotations({
    ...HttpApiSchema.annotations({ status: ErrorStatus[cls.code] }),
    identifier: cls.code,
    title: cls.code
  })
}

/**
 * STALE_POLICY carries a reason; an unrecognised one (a newer backend) still decodes to the class,
 * with the reason kept as sent: validation is skipped on purpose.
 */
const stalePolicyBody = Schema.Struct({
  message: Schema.String,
  cause: Schema.Struct({ code: Schema.Literal(StalePolicy.code), reason: Schema.String })
})
export const StalePolicyWire = Schema.transformOrFail(
  stalePolicyBody,
  Schema.declare((u): u is StalePolicy => u instanceof StalePolicy),
  {
    strict: true,
    decode: (b) =>
      ParseResult.succeed(new StalePolicy({ message: b.message, reason: b.cause.reason as StalePolicyReason }, true)),
    encode: (e: StalePolicy) =>
      ParseResult.succeed({ message: e.message, cause: { code: StalePolicy.code, reason: e.reason } })
  }
).annotations({ ...HttpApiSchema.annotations({ status: 422 }), identifier: "STALE_POLICY", title: "STALE_POLICY" })

/** The most of a sent value (or key) an error message repeats. */
const MAX_ECHO = 80

const clip = (text: string) => (text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text)

/** Shortens the value a message echoes (`..., actual <value>` / `got <value>`) to {@link MAX_ECHO} characters. */
const clipMessage = (message: string) =>
  message.replace(/(\bactual |\bgot )([\s\S]*)$/, (_, lead: string, value: string) => lead + clip(value))

const isExpectedUndefined = (message: string) => message.startsWith("Expected undefined")

/**
 * `path.to.field: what was wrong` for each issue, at most five, on one line. An optional field
 * also fails its "Expected undefined" alternative; that issue is dropped when the same path has
 * a real one. Echoed values and keys are cut to 80 characters.
 */
export const describeIssues = (
  issues: ReadonlyArray<{ readonly path: ReadonlyArray<unknown>; readonly message: string }>
): string => {
  const described = issues.map((issue) => ({
    path: issue.path.filter((p) => typeof p !== "symbol").map((p) => clip(String(p))).join("."),
    message: issue.message
  }))
  const informative = described.filter((issue) =>
    !isExpectedUndefined(issue.message) ||
    !described.some((other) =>
      other !== issue && !isExpectedUndefined(other.message) &&
      (other.path === issue.path || other.path.startsWith(issue.path === "" ? "" : `${issue.path}.`))
    )
  )
  const parts = informative.slice(0, 5).map(({ message, path }) =>
    path === "" ? clipMessage(message) : `${path}: ${clipMessage(message)}`
  )
  const more = informative.length > 5 ? ` (and ${informative.length - 5} more)` : ""
  return parts.length === 0 ? "Invalid request" : `Invalid request: ${parts.join("; ")}${more}`
}

export const InvalidRequestWire = wire(InvalidRequest)
export const UnauthorizedWire = wire(Unauthorized)
export const IdentityTokenInvalidWire = wire(IdentityTokenInvalid)
export const NotFoundWire = wire(NotFound)
export const ConflictWire = wire(Conflict)
export const SubjectConflictWire = wire(SubjectConflict)
export const IdentityConflictWire = wire(IdentityConflict)
export const PolicySnapshotExpiredWire = wire(PolicySnapshotExpired)
export const PolicySnapshotInvalidWire = wire(PolicySnapshotInvalid)
export const PayloadTooLargeWire = wire(PayloadTooLarge)
export const UnsupportedMediaTypeWire = wire(UnsupportedMediaType)
/** `429`, always with `Retry-After` (seconds). */
export const RateLimitedWire = wire(RateLimited)
export const DatabaseErrorWire = wire(DatabaseError)
export const NotReadyWire = wire(NotReady)
export const InternalErrorWire = wire(InternalError)

/** Every error the API can answer with, by class. */
export type SvcApiError =
  | InvalidRequest
  | Unauthorized
  | IdentityTokenInvalid
  | NotFound
  | Conflict
  | SubjectConflict
  | IdentityConflict
  | PolicySnapshotExpired
  | PolicySnapshotInvalid
  | PayloadTooLarge
  | UnsupportedMediaType
  | StalePolicy
  | RateLimited
  | DatabaseError
  | NotReady
  | InternalError
