import { Schema } from "effect"

/**
 * Every code the backend answers with, and the status it carries.
 *
 * @example
 * ```ts
 * import { type ErrorBody, type ErrorCode, ErrorStatus } from "@svc/schema"
 *
 * // A stub of svc in the app's own tests answers errors exactly as svc does.
 * const svcError = (code: ErrorCode, message: string) =>
 *   Response.json({ message, cause: { code } } satisfies ErrorBody, { status: ErrorStatus[code] })
 *
 * svcError("RATE_LIMITED", "Too many requests, retry in 60 s") // a 429
 * ```
 */
export const ErrorStatus = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  IDENTITY_TOKEN_INVALID: 401,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  CONFLICT: 409,
  SUBJECT_CONFLICT: 409,
  IDENTITY_CONFLICT: 409,
  POLICY_SNAPSHOT_EXPIRED: 409,
  POLICY_SNAPSHOT_INVALID: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  STALE_POLICY: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  DATABASE_ERROR: 503,
  NOT_READY: 503,
  SCRIPT_UNAVAILABLE: 503
} as const
/**
 * A `cause.code` the backend answers with (`NOT_FOUND`, `STALE_POLICY`, …).
 *
 * @example
 * ```ts
 * import { type ErrorCode, ErrorStatus } from "@svc/schema"
 *
 * const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ErrorStatus, code)
 *
 * // The sign-up page's wording for the failures a visitor can do something about.
 * const wording: Partial<Record<ErrorCode, string>> = {
 *   RATE_LIMITED: "Too many attempts; please try again in a minute.",
 *   POLICY_SNAPSHOT_EXPIRED: "This page was open too long; please choose again.",
 *   IDENTITY_CONFLICT: "This browser is already linked to another account."
 * }
 * const messageFor = (code: string) => (isErrorCode(code) ? wording[code] : undefined) ?? "Something went wrong."
 * ```
 */
export type ErrorCode = keyof typeof ErrorStatus

/**
 * Why a save was refused with `422 STALE_POLICY` (its `cause.reason`): the rule changed since the
 * visitor's `/init`, the act grants a category the rule does not offer, or no snapshot token was sent.
 *
 * @example
 * ```ts
 * import { Consents } from "@svc/backend"
 * import type { SaveConsentRequest, StalePolicyReason } from "@svc/schema"
 * import { Effect } from "effect"
 *
 * // A server relaying the banner's saves tells the page what to do when one is refused.
 * const nextStep: Record<StalePolicyReason, "ask-again" | "report-bug"> = {
 *   "policy-changed": "ask-again",
 *   "decision-mismatch": "report-bug",
 *   "incomplete-inputs": "report-bug"
 * }
 * const relay = (body: SaveConsentRequest) =>
 *   Consents.pipe(
 *     Effect.flatMap((consents) => consents.record(body)),
 *     Effect.map((saved) => ({ saved: saved.consentId })),
 *     Effect.catchTag("StalePolicy", (error) => Effect.succeed({ refused: nextStep[error.reason] }))
 *   )
 * ```
 */
export const StalePolicyReason = Schema.Literal("policy-changed", "decision-mismatch", "incomplete-inputs")
export type StalePolicyReason = typeof StalePolicyReason.Type

/**
 * The one error body shape: `{ message, cause: { code, reason? } }`.
 *
 * @example
 * ```ts
 * import { ErrorBody } from "@svc/schema"
 * import { Either, Schema } from "effect"
 *
 * const response = await fetch("https://consent.example.com/subjects/sub_k3Jd9XbQ2mVt7LpA")
 * if (!response.ok) {
 *   // Branch on `cause.code` (here NOT_FOUND for an unknown subject), never on the message.
 *   const body = Schema.decodeUnknownEither(ErrorBody)(await response.json())
 *   const code = Either.isRight(body) ? body.right.cause.code : `HTTP ${response.status}`
 *   console.warn(`svc refused the read: ${code}`)
 * }
 * ```
 */
export const ErrorBody = Schema.Struct({
  message: Schema.String,
  cause: Schema.Struct({ code: Schema.String, reason: Schema.optional(Schema.String) })
}).annotations({ identifier: "ErrorBody" })
export type ErrorBody = typeof ErrorBody.Type
