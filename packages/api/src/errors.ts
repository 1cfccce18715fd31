import { HttpApiSchema } from "@effect/platform"
import { ErrorStatus, StalePolicyReason, type ErrorCode } from "@svc/schema"
import { ParseResult, Schema } from "effect"

/*
 * One class per code of the spec's "Errors" table. Services fail with these classes; the API
 * encodes each one as the spec's body `{ message, cause: { code, reason? } }` (no `_tag` on the
 * wire) and the derived client decodes the body back into the class, picked by `cause.code`.
 */

/**
 * `INVALID_REQUEST` (400): the request broke the contract (a missing field, an impossible date, an
 * unknown policy type). The message lists what was wrong, so the call should be fixed, not retried.
 *
 * @example
 * ```ts
 * import type { SaveConsentRequest } from "@svc/schema"
 * import { SvcHttpClient } from "@svc/client"
 * import { Effect } from "effect"
 *
 * // A refused save is a bug in the caller: log the field list and do not retry it.
 * const save = (payload: SaveConsentRequest) =>
 *   Effect.flatMap(SvcHttpClient, (svc) => svc.subjects.create({ payload })).pipe(
 *     Effect.catchTag("InvalidRequest", (error) => Effect.logError("consent save refused", error.message))
 *   )
 * ```
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  message: Schema.String
}) {
  static readonly code = "INVALID_REQUEST"
}
/**
 * `UNAUTHORIZED` (401): the API key is missing or not one the backend knows, on a key-only route
 * (and on a link sent with a wrong key).
 *
 * @example
 * ```ts
 * import { Unauthorized } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // A nightly job stops at once on a revoked key instead of failing every remaining call.
 * const stopOnRevokedKey = <A, E>(job: Effect.Effect<A, E>) =>
 *   job.pipe(
 *     Effect.catchIf(
 *       (error) => error instanceof Unauthorized,
 *       () => Effect.dieMessage("svc API key rejected: rotate SVC_API_KEY")
 *     )
 *   )
 * ```
 */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { message: Schema.String }) {
  static readonly code = "UNAUTHORIZED"
}
/**
 * `IDENTITY_TOKEN_INVALID` (401): the identity token of a link did not verify, has expired, or names
 * another external ID or identity provider than the link. Nothing changes.
 *
 * @example
 * ```ts
 * import type { SubjectId } from "@svc/schema"
 * import { SvcHttpClient } from "@svc/client"
 * import { Effect } from "effect"
 *
 * // The token minted at sign-in expired before the link: report it so the page asks for a new one.
 * const linkWithToken = (id: SubjectId, externalId: string, identityToken: string) =>
 *   Effect.flatMap(SvcHttpClient, (svc) =>
 *     svc.subjects.identify({ path: { id }, payload: { externalId, identityToken } })).pipe(
 *     Effect.map(({ subject }) => ({ linked: true, verified: subject.verified })),
 *     Effect.catchTag("IdentityTokenInvalid", () => Effect.succeed({ linked: false, verified: false }))
 *   )
 * ```
 */
export class IdentityTokenInvalid extends Schema.TaggedError<IdentityTokenInvalid>()("IdentityTokenInvalid", {
  message: Schema.String
}) {
  static readonly code = "IDENTITY_TOKEN_INVALID"
}
/**
 * `NOT_FOUND` (404): the subject, legal document release, event delivery or log entry asked for does
 * not exist (a subject exists once its first consent is saved).
 *
 * @example
 * ```ts
 * import type { SubjectId } from "@svc/schema"
 * import { SvcHttpClient } from "@svc/client"
 * import { Effect, Option } from "effect"
 *
 * // A visitor who never saved a choice has no subject yet: that is "no consent", not an error.
 * const subjectOf = (id: SubjectId) =>
 *   Effect.flatMap(SvcHttpClient, (svc) => svc.subjects.get({ path: { id }, urlParams: {} })).pipe(
 *     Effect.map(Option.some),
 *     Effect.catchTag("NotFound", () => Effect.succeedNone)
 *   )
 * ```
 */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {
  static readonly code = "NOT_FOUND"
}
/**
 * `CONFLICT` (409): the request contradicts what is stored: an act already recorded with other
 * receipts, purposes or vendor grants (the earlier record stands), or a legal document hash published
 * before with another version or effective date.
 *
 * @example
 * ```ts
 * import { SvcHttpClient } from "@svc/client"
 * import { Effect } from "effect"
 *
 * // CI publishes on every deploy; the same text under a new date means someone edited a release.
 * const publish = Effect.flatMap(SvcHttpClient, (svc) =>
 *   svc.legalDocuments.publish({
 *     path: { type: "privacy_policy" },
 *     payload: { version: "2026-02", hash: "sha256-3f1c9a", effectiveDate: new Date("2026-02-01T00:00:00Z") }
 *   })).pipe(
 *     Effect.catchTag("Conflict", (error) =>
 *       Effect.fail(`privacy policy 2026-02 was published differently: ${error.message}`))
 *   )
 * ```
 */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", { message: Schema.String }) {
  static readonly code = "CONFLICT"
}
/**
 * `SUBJECT_CONFLICT` (409): another tenant holds the subject id a save names; nothing is written.
 *
 * @example
 * ```ts
 * import { SubjectConflict } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // A test double of the save endpoint: the id the browser sent is taken by another tenant.
 * const saveTaken = (_subjectId: string) =>
 *   Effect.fail(new SubjectConflict({ message: "The subject id is held by another tenant" }))
 *
 * const program = saveTaken("sub_k3Jd9XbQ2mVt7LpA").pipe(
 *   Effect.catchTag("SubjectConflict", () => Effect.succeed("give this browser a new subject id"))
 * )
 * ```
 */
export class SubjectConflict extends Schema.TaggedError<SubjectConflict>()("SubjectConflict", {
  message: Schema.String
}) {
  static readonly code = "SUBJECT_CONFLICT"
}
/**
 * `IDENTITY_CONFLICT` (409): the subject's link is verified and an unverified request names another
 * identity; the verified link stays.
 *
 * @example
 * ```ts
 * import type { SubjectId } from "@svc/schema"
 * import { SvcHttpClient } from "@svc/client"
 * import { Effect } from "effect"
 *
 * // After sign-in: a subject already tied to another account stays as it is; the app just notes it.
 * const linkAfterSignIn = (id: SubjectId, userId: string) =>
 *   Effect.flatMap(SvcHttpClient, (svc) =>
 *     svc.subjects.identify({ path: { id }, payload: { externalId: userId, identityProvider: "auth0" } })).pipe(
 *       Effect.asVoid,
 *       Effect.catchTag("IdentityConflict", (error) =>
 *         Effect.logWarning("subject linked to another user", error.message))
 *     )
 * ```
 */
export class IdentityConflict extends Schema.TaggedError<IdentityConflict>()("IdentityConflict", {
  message: Schema.String
}) {
  static readonly code = "IDENTITY_CONFLICT"
}
/**
 * `POLICY_SNAPSHOT_EXPIRED` (409): a save's `givenAt` lies outside its policy snapshot token's
 * lifetime, or the save arrived after the replay window. The choice was made too long ago to prove:
 * ask the visitor again.
 *
 * @example
 * ```ts
 * import { PolicySnapshotExpired } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // An offline queue replays saves; one held past the replay window is dropped and the banner shown again.
 * const replay = <A, E>(save: Effect.Effect<A, E>, showBannerAgain: Effect.Effect<void>) =>
 *   save.pipe(
 *     Effect.asVoid,
 *     Effect.catchIf((error) => error instanceof PolicySnapshotExpired, () => showBannerAgain)
 *   )
 * ```
 */
export class PolicySnapshotExpired extends Schema.TaggedError<PolicySnapshotExpired>()("PolicySnapshotExpired", {
  message: Schema.String
}) {
  static readonly code = "POLICY_SNAPSHOT_EXPIRED"
}
/**
 * `POLICY_SNAPSHOT_INVALID` (409): a save's policy snapshot token does not verify (another signer, an
 * altered token) or its claims are incomplete. Saving again with the same token cannot succeed.
 *
 * @example
 * ```ts
 * import { PolicySnapshotInvalid } from "@svc/api"
 *
 * // An alert rule of a log pipeline: a forged or corrupted token is worth a look, not a retry.
 * const alertWorthy = (error: { readonly _tag: string }) =>
 *   error instanceof PolicySnapshotInvalid || error._tag === "IdentityTokenInvalid"
 * const alert = alertWorthy(new PolicySnapshotInvalid({ message: "policySnapshotToken: bad signature" })) // true
 * ```
 */
export class PolicySnapshotInvalid extends Schema.TaggedError<PolicySnapshotInvalid>()("PolicySnapshotInvalid", {
  message: Schema.String
}) {
  static readonly code = "POLICY_SNAPSHOT_INVALID"
}
/**
 * `PAYLOAD_TOO_LARGE` (413): the request body is over the backend's limit (128 KiB).
 *
 * @example
 * ```ts
 * import { PayloadTooLarge } from "@svc/api"
 *
 * // An offline queue of saves drops one the backend will never accept, instead of retrying it forever.
 * const keepInQueue = (error: unknown) => !(error instanceof PayloadTooLarge)
 * const keep = keepInQueue(new PayloadTooLarge({ message: "Request body over 128 KiB" })) // false
 * ```
 */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  message: Schema.String
}) {
  static readonly code = "PAYLOAD_TOO_LARGE"
}
/**
 * `UNSUPPORTED_MEDIA_TYPE` (415): a body was sent with a content type other than `application/json`.
 *
 * @example
 * ```ts
 * import { ErrorStatus } from "@svc/schema"
 * import { UnsupportedMediaType } from "@svc/api"
 *
 * // A reverse proxy answering for svc before it forwards: same code and status as the backend.
 * const refuseForm = () => {
 *   const error = new UnsupportedMediaType({ message: "Send the body as application/json" })
 *   return Response.json(
 *     { message: error.message, cause: { code: UnsupportedMediaType.code } },
 *     { status: ErrorStatus[UnsupportedMediaType.code] }
 *   )
 * }
 * ```
 */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  message: Schema.String
}) {
  static readonly code = "UNSUPPORTED_MEDIA_TYPE"
}
/**
 * `STALE_POLICY` (422): a banner save cannot be tied to a current policy. `reason`: `policy-changed`
 * (the token's rule is no longer in the manifest under that fingerprint), `decision-mismatch` (it
 * grants a category the rule does not offer), `incomplete-inputs` (no token while signing is on).
 *
 * @example
 * ```ts
 * import type { StalePolicy } from "@svc/api"
 *
 * // The banner is shown again when the rules changed; the other reasons are bugs to report.
 * const nextStep = (error: StalePolicy) => {
 *   switch (error.reason) {
 *     case "policy-changed": return "show the banner again with a fresh /init"
 *     case "decision-mismatch": return "report: the save grants a category the rule does not offer"
 *     case "incomplete-inputs": return "report: the banner saved without its policySnapshotToken"
 *   }
 * }
 * ```
 */
export class StalePolicy extends Schema.TaggedError<StalePolicy>()("StalePolicy", {
  message: Schema.String,
  reason: StalePolicyReason
}) {
  static readonly code = "STALE_POLICY"
}
/**
 * `RATE_LIMITED` (429): the API key or the client IP is over its configured `rateLimit`. The answer
 * carries `Retry-After` (seconds).
 *
 * @example
 * ```ts
 * import { SvcHttpClient } from "@svc/client"
 * import { Effect, Schedule } from "effect"
 *
 * // An export of many users backs off while the key is over its limit, up to five times.
 * const listSubjects = (externalId: string) =>
 *   Effect.flatMap(SvcHttpClient, (svc) => svc.subjects.list({ urlParams: { externalId } })).pipe(
 *     Effect.retry({
 *       schedule: Schedule.exponential("1 second"),
 *       times: 5,
 *       while: (error) => error._tag === "RateLimited"
 *     })
 *   )
 * ```
 */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", { message: Schema.String }) {
  static readonly code = "RATE_LIMITED"
}
/**
 * `DATABASE_ERROR` (503): the backend could not reach its database or the query failed. Transient:
 * the same call may succeed later.
 *
 * @example
 * ```ts
 * import { DatabaseError } from "@svc/api"
 * import { Effect, Schedule } from "effect"
 *
 * // A consent check in a mail job waits out a database failover (a few seconds) before giving up.
 * const patiently = <A, E>(call: Effect.Effect<A, E>) =>
 *   Effect.retry(call, {
 *     schedule: Schedule.spaced("2 seconds"),
 *     times: 3,
 *     while: (error) => error instanceof DatabaseError
 *   })
 * ```
 */
export class DatabaseError extends Schema.TaggedError<DatabaseError>()("DatabaseError", { message: Schema.String }) {
  static readonly code = "DATABASE_ERROR"
}
/**
 * `NOT_READY` (503) from `GET /health/ready`: the instance cannot serve consent now (database
 * unreachable, schema behind, or draining on shutdown); the message says why.
 *
 * @example
 * ```ts
 * import { SvcHttpClient } from "@svc/client"
 * import { Effect } from "effect"
 *
 * // A deploy script waits for readiness and prints why the instance is not ready yet.
 * const isReady = Effect.flatMap(SvcHttpClient, (svc) => svc.health.ready()).pipe(
 *   Effect.as(true),
 *   Effect.catchTag("NotReady", (error) => Effect.as(Effect.log(`not ready: ${error.message}`), false))
 * )
 * ```
 */
export class NotReady extends Schema.TaggedError<NotReady>()("NotReady", { message: Schema.String }) {
  static readonly code = "NOT_READY"
}
/**
 * `INTERNAL_ERROR` (500): an unexpected failure in the backend. The body never carries details; the
 * backend's log has them under the request id.
 *
 * @example
 * ```ts
 * import { InternalError } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // A custom route beside svc's answers a defect the way svc does: 500, no stack trace in the body.
 * const handler = (work: Effect.Effect<string>) =>
 *   work.pipe(
 *     Effect.catchAllDefect((defect) =>
 *       Effect.zipRight(
 *         Effect.logError("defect", defect),
 *         Effect.fail(new InternalError({ message: "Internal error" }))
 *       ))
 *   )
 * ```
 */
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
    encode: (e) => ({ message: e.message, cause: { code: cls.code } })
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
/**
 * The wire schema of `StalePolicy`: the body `{ message, cause: { code: "STALE_POLICY", reason } }`
 * (status 422) on the wire, the class in code. A reason this version does not know is kept as sent.
 *
 * @example
 * ```ts
 * import { StalePolicyWire } from "@svc/api"
 * import { Schema } from "effect"
 *
 * // A raw 422 body read by a script without the derived client.
 * const error = Schema.decodeUnknownSync(StalePolicyWire)({
 *   message: "The policy changed since /init",
 *   cause: { code: "STALE_POLICY", reason: "policy-changed" }
 * })
 * const showBannerAgain = error.reason === "policy-changed" // true
 * ```
 */
export const StalePolicyWire = Schema.transformOrFail(
  stalePolicyBody,
  Schema.declare((u): u is StalePolicy => u instanceof StalePolicy),
  {
    strict: true,
    decode: (b) =>
      ParseResult.succeed(
        // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- a reason a newer backend sends is kept as sent (validation skipped on purpose); readers match it against the known reasons
        new StalePolicy({ message: b.message, reason: b.cause.reason as StalePolicyReason }, true)
      ),
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
 *
 * @example
 * ```ts
 * import { describeIssues, InvalidRequest } from "@svc/api"
 * import { Effect, ParseResult, Schema } from "effect"
 *
 * // A custom route refuses a bad body with the same one-line message as svc's own routes.
 * const ReportBody = Schema.Struct({ domain: Schema.String, from: Schema.Date })
 * const readReportBody = (body: unknown) =>
 *   Schema.decodeUnknown(ReportBody, { errors: "all" })(body).pipe(
 *     Effect.mapError((error) =>
 *       new InvalidRequest({ message: describeIssues(ParseResult.ArrayFormatter.formatErrorSync(error)) }))
 *   )
 * // readReportBody({ from: "soon" }) fails with "Invalid request: domain: is missing; from: …"
 * ```
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

/**
 * The wire schema of `InvalidRequest`: `{ message, cause: { code: "INVALID_REQUEST" } }` (400) on the
 * wire, the class in code. Each error class has one (`…Wire`); endpoints declare them with `addError`.
 *
 * @example
 * ```ts
 * import { InvalidRequest, InvalidRequestWire } from "@svc/api"
 * import { Schema } from "effect"
 *
 * // A fake svc in a test answers a bad save with exactly the body the real backend sends.
 * const body = Schema.encodeSync(InvalidRequestWire)(
 *   new InvalidRequest({ message: "Invalid request: givenAt: must be a valid date" })
 * )
 * const response = Response.json(body, { status: 400 }) // body.cause.code === "INVALID_REQUEST"
 * ```
 */
export const InvalidRequestWire = wire(InvalidRequest)
/**
 * The wire schema of `Unauthorized` (401): declares the error on an endpoint of your own.
 *
 * @example
 * ```ts
 * import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
 * import { UnauthorizedWire } from "@svc/api"
 * import { ConsentCheck } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // An app's own admin route answers a bad key with svc's body, so one client decodes both.
 * class AdminGroup extends HttpApiGroup.make("admin").add(
 *   HttpApiEndpoint.get("newsletterConsent", "/admin/users/:userId/newsletter")
 *     .setPath(Schema.Struct({ userId: Schema.String }))
 *     .addSuccess(ConsentCheck)
 *     .addError(UnauthorizedWire)
 * ) {}
 * ```
 */
export const UnauthorizedWire = wire(Unauthorized)
/**
 * The wire schema of `IdentityTokenInvalid` (401).
 *
 * @example
 * ```ts
 * import { IdentityTokenInvalidWire } from "@svc/api"
 * import { Either, Schema } from "effect"
 *
 * // A plain fetch of PATCH /subjects/:id: tell an expired identity token from other 401s.
 * const needsNewToken = async (response: Response) => {
 *   if (response.status !== 401) return false
 *   return Either.isRight(Schema.decodeUnknownEither(IdentityTokenInvalidWire)(await response.json()))
 * }
 * ```
 */
export const IdentityTokenInvalidWire = wire(IdentityTokenInvalid)
/**
 * The wire schema of `NotFound` (404).
 *
 * @example
 * ```ts
 * import { NotFoundWire } from "@svc/api"
 * import { Option, Schema } from "effect"
 *
 * // A static site build reads the current DPA; none published yet is fine, any other failure is not.
 * const response = await fetch("https://consent.example.com/legal-documents/dpa/current")
 * const body: unknown = await response.json()
 * const published = response.ok
 *   ? body
 *   : Option.match(Schema.decodeUnknownOption(NotFoundWire)(body), {
 *     onSome: () => null,
 *     onNone: () => { throw new Error(`svc answered ${response.status}`) }
 *   })
 * ```
 */
export const NotFoundWire = wire(NotFound)
/**
 * The wire schema of `Conflict` (409).
 *
 * @example
 * ```ts
 * import { ConflictWire, IdentityConflictWire, SubjectConflictWire } from "@svc/api"
 * import { Schema } from "effect"
 *
 * // Any 409 body svc can send, decoded to its class so the caller can switch on `_tag`.
 * const AnyConflict = Schema.Union(ConflictWire, SubjectConflictWire, IdentityConflictWire)
 * const error = Schema.decodeUnknownSync(AnyConflict)({
 *   message: "sub_k3Jd9XbQ2mVt7LpA is linked to another user",
 *   cause: { code: "IDENTITY_CONFLICT" }
 * })
 * const tag = error._tag // "IdentityConflict"
 * ```
 */
export const ConflictWire = wire(Conflict)
/**
 * The wire schema of `SubjectConflict` (409).
 *
 * @example
 * ```ts
 * import { SubjectConflict, SubjectConflictWire } from "@svc/api"
 * import { Schema } from "effect"
 *
 * // A mock-server handler (MSW, a fetch stub) that answers a save the way svc does for a shared device.
 * const answerSave = () =>
 *   Response.json(
 *     Schema.encodeSync(SubjectConflictWire)(new SubjectConflict({ message: "The subject belongs to another user" })),
 *     { status: 409 }
 *   )
 * ```
 */
export const SubjectConflictWire = wire(SubjectConflict)
/**
 * The wire schema of `IdentityConflict` (409).
 *
 * @example
 * ```ts
 * import { IdentityConflictWire } from "@svc/api"
 * import { Schema } from "effect"
 *
 * // A log formatter tags link conflicts apart; `Schema.is` checks for the decoded class.
 * const isIdentityConflict = Schema.is(IdentityConflictWire)
 * const category = (error: unknown) => (isIdentityConflict(error) ? "identity-conflict" : "other")
 * ```
 */
export const IdentityConflictWire = wire(IdentityConflict)
/**
 * The wire schema of `PolicySnapshotExpired` (422).
 *
 * @example
 * ```ts
 * import { PolicySnapshotExpiredWire } from "@svc/api"
 * import { Either, Schema } from "effect"
 *
 * // An offline queue stored the raw answer of a failed save; an expired token means: fetch /init, save again.
 * const storedAnswer: unknown = {
 *   message: "The policy snapshot token expired",
 *   cause: { code: "POLICY_SNAPSHOT_EXPIRED" }
 * }
 * const refreshAndResend = Either.isRight(Schema.decodeUnknownEither(PolicySnapshotExpiredWire)(storedAnswer))
 * ```
 */
export const PolicySnapshotExpiredWire = wire(PolicySnapshotExpired)
/**
 * The wire schema of `PolicySnapshotInvalid` (422).
 *
 * @example
 * ```ts
 * import { PolicySnapshotInvalidWire } from "@svc/api"
 * import { JSONSchema } from "effect"
 *
 * // The JSON Schema of the error body, for a team that calls svc from another language.
 * const bodySchema = JSONSchema.make(PolicySnapshotInvalidWire)
 * const document = JSON.stringify(bodySchema, null, 2)
 * ```
 */
export const PolicySnapshotInvalidWire = wire(PolicySnapshotInvalid)
/**
 * The wire schema of `PayloadTooLarge` (413).
 *
 * @example
 * ```ts
 * import { PayloadTooLarge, PayloadTooLargeWire } from "@svc/api"
 * import { Schema } from "effect"
 * import { expect, it } from "vitest"
 *
 * // A proxy's own body limit must answer like svc, so clients handle both the same way.
 * it("refuses a 2 MB body with svc's 413", async () => {
 *   const response = await fetch("http://127.0.0.1:8080/subjects", { method: "POST", body: "x".repeat(2_000_000) })
 *   expect(response.status).toBe(413)
 *   expect(Schema.decodeUnknownSync(PayloadTooLargeWire)(await response.json())).toBeInstanceOf(PayloadTooLarge)
 * })
 * ```
 */
export const PayloadTooLargeWire = wire(PayloadTooLarge)
/**
 * The wire schema of `UnsupportedMediaType` (415).
 *
 * @example
 * ```ts
 * import { HttpServerResponse } from "@effect/platform"
 * import { UnsupportedMediaType, UnsupportedMediaTypeWire } from "@svc/api"
 *
 * // A raw route mounted beside svc's answers a form post with svc's own body and status.
 * const refuseForm = HttpServerResponse.schemaJson(UnsupportedMediaTypeWire)(
 *   new UnsupportedMediaType({ message: "Send the body as application/json" }),
 *   { status: 415 }
 * )
 * ```
 */
export const UnsupportedMediaTypeWire = wire(UnsupportedMediaType)
/**
 * The wire schema of `RateLimited`: `429`, always with `Retry-After` (seconds).
 *
 * @example
 * ```ts
 * import { RateLimitedWire } from "@svc/api"
 * import { Option, Schema } from "effect"
 *
 * // A load test counts the answers svc limited and how long it asked the caller to wait.
 * const waitSeconds = async (response: Response): Promise<number | undefined> => {
 *   if (response.status !== 429) return undefined
 *   const limited = Schema.decodeUnknownOption(RateLimitedWire)(await response.json())
 *   return Option.isSome(limited) ? Number(response.headers.get("retry-after")) : undefined
 * }
 * ```
 */
export const RateLimitedWire = wire(RateLimited)
/**
 * The wire schema of `DatabaseError` (503). It decodes only its own code: another code's body is refused.
 *
 * @example
 * ```ts
 * import { DatabaseErrorWire } from "@svc/api"
 * import { Either, Schema } from "effect"
 *
 * const decode = Schema.decodeUnknownEither(DatabaseErrorWire)
 * // A status page tells a database outage (worth waiting for) from a bug in the backend.
 * const outage = Either.isRight(decode({ message: "Database unavailable", cause: { code: "DATABASE_ERROR" } })) // true
 * const other = Either.isRight(decode({ message: "Internal error", cause: { code: "INTERNAL_ERROR" } })) // false
 * ```
 */
export const DatabaseErrorWire = wire(DatabaseError)
/**
 * The wire schema of `NotReady` (503).
 *
 * @example
 * ```ts
 * import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
 * import { NotReadyWire } from "@svc/api"
 * import { Readiness } from "@svc/schema"
 *
 * // An app that embeds svc exposes one readiness route of its own, with svc's 503 body.
 * class ProbeGroup extends HttpApiGroup.make("probe").add(
 *   HttpApiEndpoint.get("ready", "/ready").addSuccess(Readiness).addError(NotReadyWire)
 * ) {}
 * ```
 */
export const NotReadyWire = wire(NotReady)
/**
 * The wire schema of `InternalError` (500).
 *
 * @example
 * ```ts
 * import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
 * import { InternalErrorWire } from "@svc/api"
 * import { Schema } from "effect"
 *
 * // A companion API next to svc declares the 500 once for every route, as `SvcApi` does.
 * class ReportsApi extends HttpApi.make("reports")
 *   .add(HttpApiGroup.make("reports").add(HttpApiEndpoint.get("daily", "/reports/daily").addSuccess(Schema.String)))
 *   .addError(InternalErrorWire) {}
 * ```
 */
export const InternalErrorWire = wire(InternalError)

/**
 * Every error the API can answer with, by class.
 *
 * @example
 * ```ts
 * import type { SvcApiError } from "@svc/api"
 *
 * // Which failures a queued job should try again later; the rest need a person or a code fix.
 * const retryLater = (error: SvcApiError): boolean => {
 *   switch (error._tag) {
 *     case "RateLimited":
 *     case "DatabaseError":
 *     case "NotReady":
 *     case "InternalError":
 *       return true
 *     default:
 *       return false
 *   }
 * }
 * ```
 */
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
