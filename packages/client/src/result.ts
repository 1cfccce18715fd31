import { Predicate } from "effect"
import type { SvcError, SvcErrorCode } from "./errors.js"

/**
 * A successful result: the decoded body as `data` (times as `Date`s), the status, the request id sent
 * and the response headers.
 *
 * @example
 * ```ts
 * import type { SvcSuccess } from "@svc/client"
 *
 * // Caching a GET for as long as svc's Cache-Control allows.
 * const maxAgeSeconds = (result: SvcSuccess<unknown>) => {
 *   const match = /max-age=(\d+)/.exec(result.headers["cache-control"] ?? "")
 *   return match === null ? 0 : Number(match[1])
 * }
 * ```
 */
export interface SvcSuccess<T> {
  readonly ok: true
  /** The response body; times are `Date` objects. */
  readonly data: T
  readonly status: number
  /** The `x-request-id` sent. */
  readonly requestId: string
  /** Response headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>
}

/**
 * A failed result: its `SvcError`, with the codes the method can fail with.
 *
 * @example
 * ```ts
 * import type { SvcFailure } from "@svc/client"
 *
 * // A failure worth an alert: the key is wrong or missing, which no retry will fix.
 * const isKeyProblem = (failure: SvcFailure) =>
 *   failure.error.code === "UNAUTHORIZED" || failure.error.code === "MISSING_API_KEY"
 * ```
 */
export interface SvcFailure<C extends SvcErrorCode = SvcErrorCode> {
  readonly ok: false
  readonly error: SvcError<C>
}

/**
 * What every method resolves to; methods never reject.
 *
 * @example
 * ```ts
 * import type { SvcResult } from "@svc/client"
 *
 * // A helper for any method: the data, or a fallback with the failure logged once.
 * const orElse = <T>(result: SvcResult<T>, fallback: T): T => {
 *   if (result.ok) return result.data
 *   console.warn(`svc call failed: ${result.error.code}`, result.error.requestId)
 *   return fallback
 * }
 * ```
 */
export type SvcResult<T, C extends SvcErrorCode = SvcErrorCode> = SvcSuccess<T> | SvcFailure<C>

type Resolved<X> = X extends (...args: never) => infer R ? Awaited<R> : Awaited<X>

/**
 * The `data` type of a method (`SvcDataOf<SvcClient["subjects"]["get"]>`) or of a result type.
 *
 * @example
 * ```ts
 * import type { SvcClient, SvcDataOf } from "@svc/client"
 *
 * // A view model built from what subjects.get returns, without naming the response type.
 * type Subject = SvcDataOf<SvcClient["subjects"]["get"]>
 * const consentBadges = (subject: Subject) =>
 *   subject.consents.map((consent) => `${consent.type} ${consent.givenAt.toISOString().slice(0, 10)}`)
 * ```
 */
export type SvcDataOf<X> = Resolved<X> extends infer R ? R extends SvcSuccess<infer T> ? T : never : never

/**
 * The error codes a method (or a result type) can fail with.
 *
 * @example
 * ```ts
 * import type { SvcClient, SvcErrorCodeOf } from "@svc/client"
 *
 * // A translation table a UI must complete for every code a save can fail with.
 * type SaveCode = SvcErrorCodeOf<SvcClient["subjects"]["create"]>
 * const shortLabel = (code: SaveCode): string =>
 *   code === "STALE_POLICY" ? "Settings changed, choose again" : "Could not save your choice"
 * ```
 */
export type SvcErrorCodeOf<X> = Resolved<X> extends infer R ? R extends SvcFailure<infer C> ? C : never : never

/**
 * Returns `data`, or throws the result's `SvcError`. Accepts a result or a promise of one.
 *
 * @example
 * ```ts
 * import { createSvcClient, unwrap } from "@svc/client"
 *
 * // A script where any failure should stop it: the thrown SvcError carries the code and request id.
 * const svc = createSvcClient({ baseUrl: "https://consent.example.com", apiKey: process.env.SVC_API_KEY })
 * const { policies } = await unwrap(svc.legalDocuments.list("privacy_policy"))
 * for (const policy of policies) {
 *   console.log(policy.version, policy.effectiveDate.toISOString().slice(0, 10), policy.hash)
 * }
 * ```
 */
export function unwrap<T, C extends SvcErrorCode>(result: SvcResult<T, C>): T
export function unwrap<T, C extends SvcErrorCode>(result: PromiseLike<SvcResult<T, C>>): Promise<T>
export function unwrap<T, C extends SvcErrorCode>(
  result: SvcResult<T, C> | PromiseLike<SvcResult<T, C>>
): T | Promise<T> {
  if (Predicate.isPromiseLike(result)) return Promise.resolve(result).then((settled) => unwrap(settled))
  if (result.ok) return result.data
  throw result.error
}
