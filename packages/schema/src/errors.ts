import { Schema } from "effect"

/** Every code the backend answers with, and the status it carries. */
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
export type ErrorCode = keyof typeof ErrorStatus

export const StalePolicyReason = Schema.Literal("policy-changed", "decision-mismatch", "incomplete-inputs")
export type StalePolicyReason = typeof StalePolicyReason.Type

/** The one error body shape: `{ message, cause: { code, reason? } }`. */
export const ErrorBody = Schema.Struct({
  message: Schema.String,
  cause: Schema.Struct({ code: Schema.String, reason: Schema.optional(Schema.String) })
}).annotations({ identifier: "ErrorBody" })
export type ErrorBody = typeof ErrorBody.Type
