import { HttpApiSchema } from "@effect/platform"
import { ErrorStatus, StalePolicyReason, type ErrorCode } from "@svc/schema"
import { ParseResult, Schema } from "effect"

/*
 * One class per code of the spec's "Errors" table. Services fail with these classes; the API
 * encodes each one as the spec's body `{ message, cause: { code, reason? } }` (no `_tag` on the
 * wire) and the derived client decodes the body back into the class, picked by `cause.code`.
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
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { message: Schema.String }) {
  static readonly code = "NOT_FOUND"
}
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", { message: Schema.String }) {
  static readonly code = "CONFLICT"
}
export class SubjectConflict extends Schema.TaggedError<SubjectConflict>()("SubjectConflict", {
  message: Schema.String
}) {
  static readonly code = "SUBJECT_CONFLICT"
}
export class IdentityConflict extends Schema.TaggedError<IdentityConflict>()("IdentityConflict", {
  message: Schema.String
}) {
  static readonly code = "IDENTITY_CONFLICT"
}
export class PolicySnapshotExpired extends Schema.TaggedError<PolicySnapshotExpired>()("PolicySnapshotExpired", {
  message: Schema.String
}) {
  static readonly code = "POLICY_SNAPSHOT_EXPIRED"
}
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
export class StalePolicy extends Schema.TaggedError<StalePolicy>()("StalePolicy", {
  message: Schema.String,
  reason: StalePolicyReason
}) {
  static readonly code = "STALE_POLICY"
}
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", { message: Schema.String }) {
  static readonly code = "RATE_LIMITED"
}
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
