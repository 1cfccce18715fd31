import type { SvcError, SvcErrorCode } from "./errors.js"

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

export interface SvcFailure<C extends SvcErrorCode = SvcErrorCode> {
  readonly ok: false
  readonly error: SvcError<C>
}

/** What every method resolves to; methods never reject. */
export type SvcResult<T, C extends SvcErrorCode = SvcErrorCode> = SvcSuccess<T> | SvcFailure<C>

type Resolved<X> = X extends (...args: never) => infer R ? Awaited<R> : Awaited<X>

/** The `data` type of a method (`SvcDataOf<SvcClient["subjects"]["get"]>`) or of a result type. */
export type SvcDataOf<X> = Resolved<X> extends infer R ? R extends SvcSuccess<infer T> ? T : never : never

/** The error codes a method (or a result type) can fail with. */
export type SvcErrorCodeOf<X> = Resolved<X> extends infer R ? R extends SvcFailure<infer C> ? C : never : never

/** Returns `data`, or throws the result's `SvcError`. Accepts a result or a promise of one. */
export function unwrap<T, C extends SvcErrorCode>(result: SvcResult<T, C>): T
export function unwrap<T, C extends SvcErrorCode>(result: PromiseLike<SvcResult<T, C>>): Promise<T>
export function unwrap<T, C extends SvcErrorCode>(
  result: SvcResult<T, C> | PromiseLike<SvcResult<T, C>>
): T | Promise<T> {
  if ("then" in result && typeof result.then === "function") {
    return Promise.resolve(result).then((settled) => unwrap(settled))
  }
  const settled = result as SvcResult<T, C>
  if (settled.ok) return settled.data
  throw settled.error
}
