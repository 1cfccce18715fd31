import type * as Api from "@svc/api"

/** Codes the client produces itself; every method can return them. */
export const clientErrorCodes = [
  "INVALID_INPUT",
  "MISSING_API_KEY",
  "NETWORK_ERROR",
  "TIMEOUT",
  "ABORTED",
  "UNEXPECTED_RESPONSE"
] as const
/**
 * Codes the client produces itself, for failures before or around a request; every method can return them.
 *
 * @example
 * ```ts
 * import type { ClientErrorCode } from "@svc/client"
 *
 * // What an on-call runbook says for each failure that is not an answer of the backend.
 * const runbook: Record<ClientErrorCode, string> = {
 *   INVALID_INPUT: "fix the call: error.issues names each argument",
 *   MISSING_API_KEY: "create the client with apiKey",
 *   NETWORK_ERROR: "svc unreachable: DNS, TLS or a closed port",
 *   TIMEOUT: "svc answered too slowly: check its load, or raise timeoutMs",
 *   ABORTED: "the caller gave up (its signal aborted)",
 *   UNEXPECTED_RESPONSE: "something else answered: a proxy's error page, or a newer backend"
 * }
 * ```
 */
export type ClientErrorCode = (typeof clientErrorCodes)[number]

/** The backend code of each error class of the `@svc/api` contract, by `_tag`. */
interface CodeByTag {
  readonly InvalidRequest: typeof Api.InvalidRequest.code
  readonly Unauthorized: typeof Api.Unauthorized.code
  readonly IdentityTokenInvalid: typeof Api.IdentityTokenInvalid.code
  readonly NotFound: typeof Api.NotFound.code
  readonly Conflict: typeof Api.Conflict.code
  readonly SubjectConflict: typeof Api.SubjectConflict.code
  readonly IdentityConflict: typeof Api.IdentityConflict.code
  readonly PolicySnapshotExpired: typeof Api.PolicySnapshotExpired.code
  readonly PolicySnapshotInvalid: typeof Api.PolicySnapshotInvalid.code
  readonly PayloadTooLarge: typeof Api.PayloadTooLarge.code
  readonly UnsupportedMediaType: typeof Api.UnsupportedMediaType.code
  readonly StalePolicy: typeof Api.StalePolicy.code
  readonly RateLimited: typeof Api.RateLimited.code
  readonly DatabaseError: typeof Api.DatabaseError.code
  readonly NotReady: typeof Api.NotReady.code
  readonly InternalError: typeof Api.InternalError.code
}
// Fails to compile when the contract gains an error class this map does not know.
type MissingTags = Exclude<Api.SvcApiError["_tag"], keyof CodeByTag>
const _everyContractErrorIsMapped: [MissingTags] extends [never] ? true : MissingTags = true
void _everyContractErrorIsMapped

/** Backend code of an error type of the contract (other members, such as transport errors, map to never). */
export type BackendCodeOf<E> = E extends { readonly _tag: infer T } ? T extends keyof CodeByTag ? CodeByTag[T] : never
  : never

/**
 * Every code a backend answer of the contract can carry.
 *
 * @example
 * ```ts
 * import type { BackendErrorCode } from "@svc/client"
 * import { ErrorStatus } from "@svc/schema"
 *
 * // A BFF passes svc's refusals on to its own callers with the status svc used.
 * const statusFor = (code: BackendErrorCode): number => ErrorStatus[code]
 * const conflict = statusFor("IDENTITY_CONFLICT") // 409
 * ```
 */
export type BackendErrorCode = CodeByTag[keyof CodeByTag]

/**
 * Every code an `SvcError` can carry: the client's own and the backend's.
 *
 * @example
 * ```ts
 * import type { SvcErrorCode } from "@svc/client"
 *
 * // A queue worker puts a failed job back for these; anything else goes to the dead-letter list.
 * const requeueable: ReadonlySet<SvcErrorCode> = new Set<SvcErrorCode>([
 *   "NETWORK_ERROR", "TIMEOUT", "RATE_LIMITED", "DATABASE_ERROR", "NOT_READY", "INTERNAL_ERROR"
 * ])
 * const nextStep = (code: SvcErrorCode) => (requeueable.has(code) ? "requeue" : "dead-letter")
 * ```
 */
export type SvcErrorCode = ClientErrorCode | BackendErrorCode

export const stalePolicyReasons = ["policy-changed", "decision-mismatch", "incomplete-inputs"] as const
/**
 * Why a save was refused with `STALE_POLICY` (`error.reason`).
 *
 * @example
 * ```ts
 * import type { StalePolicyReason } from "@svc/client"
 *
 * // What the banner says before it asks again, by reason; a reason this client does not know is undefined.
 * const askAgain: Record<StalePolicyReason, string> = {
 *   "policy-changed": "Our cookie settings changed. Please choose again.",
 *   "decision-mismatch": "This choice is not offered here. Please choose again.",
 *   "incomplete-inputs": "Please reload the page and choose again."
 * }
 * const messageFor = (reason: StalePolicyReason | undefined) => askAgain[reason ?? "incomplete-inputs"]
 * ```
 */
export type StalePolicyReason = (typeof stalePolicyReasons)[number]

/**
 * One validation problem; `path` locates it in the arguments (`["givenAt"]`, `["types", 1]`).
 *
 * @example
 * ```ts
 * import type { SvcIssue } from "@svc/client"
 *
 * // An admin form shows each problem beside its field ("receipts.marketing.confirmedAt").
 * const messagesByField = (issues: ReadonlyArray<SvcIssue>): Record<string, string> =>
 *   Object.fromEntries(issues.map((issue) => [issue.path.join("."), issue.message]))
 * ```
 */
export interface SvcIssue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

export interface SvcErrorInit<C extends SvcErrorCode> {
  readonly code: C
  readonly message: string
  readonly status?: number | undefined
  readonly requestId?: string | undefined
  readonly retryable?: boolean | undefined
  readonly issues?: ReadonlyArray<SvcIssue> | undefined
  readonly reason?: StalePolicyReason | undefined
  readonly serverCode?: string | undefined
  readonly cause?: unknown
}

/**
 * `error.toJSON()`: a plain object, without the fields that do not apply.
 *
 * @example
 * ```ts
 * import type { SvcError, SvcErrorJSON } from "@svc/client"
 *
 * // One structured log line per failed call: no stack, and the request id to find it in svc's logs.
 * const logLine = (operation: string, error: SvcError) => {
 *   const fields: SvcErrorJSON = error.toJSON()
 *   return JSON.stringify({ level: "warn", operation, ...fields })
 * }
 * ```
 */
export interface SvcErrorJSON {
  readonly name: "SvcError"
  readonly code: SvcErrorCode
  readonly message: string
  readonly status?: number
  readonly requestId?: string
  readonly retryable: boolean
  readonly issues?: ReadonlyArray<SvcIssue>
  readonly reason?: StalePolicyReason
  readonly serverCode?: string
}

/**
 * The error of a failed result. Methods never throw it; `unwrap` does.
 *
 * @example
 * ```ts
 * import { createSvcClient } from "@svc/client"
 *
 * const svc = createSvcClient({ baseUrl: "https://consent.example.com" })
 * const result = await svc.subjects.get("sub_k3Jd9XbQ2mVt7LpA")
 * if (!result.ok) {
 *   // An SvcError of the codes subjects.get can fail with (NOT_FOUND, TIMEOUT, …).
 *   const { code, status, requestId, retryable } = result.error
 *   console.warn(`subjects.get: ${code}, HTTP ${status ?? "-"}, request ${requestId ?? "-"}, retryable ${retryable}`)
 * }
 * ```
 */
export class SvcError<C extends SvcErrorCode = SvcErrorCode> extends Error {
  override readonly name = "SvcError" as const
  readonly code: C
  /** HTTP status, when a response arrived. */
  readonly status: number | undefined
  /** The `x-request-id` sent, when something was sent. */
  readonly requestId: string | undefined
  /** Whether the same call could succeed later (retries are already exhausted). */
  readonly retryable: boolean
  /** On `INVALID_INPUT`: each problem with its path. */
  readonly issues: ReadonlyArray<SvcIssue> | undefined
  /** On `STALE_POLICY`; `undefined` for a reason this client does not know. */
  readonly reason: StalePolicyReason | undefined
  /** The backend's own code, when it is not one documented for the method. */
  readonly serverCode: string | undefined

  constructor(init: SvcErrorInit<C>) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.code = init.code
    this.status = init.status
    this.requestId = init.requestId
    this.retryable = init.retryable ?? false
    this.issues = init.issues
    this.reason = init.reason
    this.serverCode = init.serverCode
  }

  toJSON(): SvcErrorJSON {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      ...(this.status === undefined ? {} : { status: this.status }),
      ...(this.requestId === undefined ? {} : { requestId: this.requestId }),
      retryable: this.retryable,
      ...(this.issues === undefined
        ? {}
        : { issues: this.issues.map((i) => ({ path: [...i.path], message: i.message })) }),
      ...(this.reason === undefined ? {} : { reason: this.reason }),
      ...(this.serverCode === undefined ? {} : { serverCode: this.serverCode })
    }
  }
}

/**
 * Thrown by `createSvcClient` (and `createIdentityToken`) with every problem found, never one at a time.
 *
 * @example
 * ```ts
 * import { createSvcClient, SvcConfigurationError } from "@svc/client"
 *
 * // A boot that fails lists every bad option at once; no message repeats the key.
 * try {
 *   createSvcClient({ baseUrl: "http://consent.example.com", apiKey: "k_live_8c1f", timeoutMs: 0 })
 * } catch (error) {
 *   if (!(error instanceof SvcConfigurationError)) throw error
 *   for (const issue of error.issues) console.error(`${issue.path.join(".")}: ${issue.message}`)
 *   // baseUrl: must use https: when an apiKey is set (…); timeoutMs: must be an integer from 1 to 2147483647
 * }
 * ```
 */
export class SvcConfigurationError extends Error {
  override readonly name = "SvcConfigurationError" as const
  readonly issues: ReadonlyArray<SvcIssue>

  constructor(issues: ReadonlyArray<SvcIssue>, subject = "svc client options") {
    super(`Invalid ${subject}: ${issues.map(formatIssue).join("; ")}`)
    this.issues = issues
  }
}

export const formatIssue = (issue: SvcIssue): string =>
  issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`

/** The codes an error value can have: its own for an `SvcError`, any code otherwise. */
export type PossibleCodeOf<E> = E extends SvcError<infer C> ? C : SvcErrorCode

/**
 * True when `error` is an `SvcError` and, when codes are given, carries one of them; narrows the
 * code. On a typed error only its own codes are accepted, so a typo does not compile. Errors from
 * another copy of this package are recognised by shape.
 *
 * @example
 * ```ts
 * import { isSvcError, type SvcClient, unwrap } from "@svc/client"
 *
 * // With unwrap the error is thrown; in the catch, isSvcError recognises it and narrows its code.
 * export async function currentPrivacyPolicy(svc: SvcClient) {
 *   try {
 *     return (await unwrap(svc.legalDocuments.current("privacy_policy"))).policy
 *   } catch (error) {
 *     if (isSvcError(error, "NOT_FOUND")) return null // nothing published yet
 *     throw error
 *   }
 * }
 * ```
 */
export function isSvcError<E, C extends PossibleCodeOf<E> = PossibleCodeOf<E>>(
  error: E,
  ...codes: ReadonlyArray<C>
): error is E & SvcError<C>
export function isSvcError(error: unknown, ...codes: ReadonlyArray<string>): boolean {
  // An SvcError of another copy of this package (a second install) counts too.
  const code = error instanceof Error && error.name === "SvcError" && "code" in error ? error.code : undefined
  return typeof code === "string" && (codes.length === 0 || codes.includes(code))
}

const allCodes: ReadonlySet<string> = new Set<SvcErrorCode>([
  ...clientErrorCodes,
  ...Object.values<BackendErrorCode>(
    {
      InvalidRequest: "INVALID_REQUEST",
      Unauthorized: "UNAUTHORIZED",
      IdentityTokenInvalid: "IDENTITY_TOKEN_INVALID",
      NotFound: "NOT_FOUND",
      Conflict: "CONFLICT",
      SubjectConflict: "SUBJECT_CONFLICT",
      IdentityConflict: "IDENTITY_CONFLICT",
      PolicySnapshotExpired: "POLICY_SNAPSHOT_EXPIRED",
      PolicySnapshotInvalid: "POLICY_SNAPSHOT_INVALID",
      PayloadTooLarge: "PAYLOAD_TOO_LARGE",
      UnsupportedMediaType: "UNSUPPORTED_MEDIA_TYPE",
      StalePolicy: "STALE_POLICY",
      RateLimited: "RATE_LIMITED",
      DatabaseError: "DATABASE_ERROR",
      NotReady: "NOT_READY",
      InternalError: "INTERNAL_ERROR"
    } satisfies CodeByTag
  )
])

/** Whether `value` is one of the codes an `SvcError` can have. */
export const isSvcErrorCode = (value: unknown): value is SvcErrorCode =>
  typeof value === "string" && allCodes.has(value)
