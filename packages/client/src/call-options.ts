import {
  checkHeaders,
  checkKnownKeys,
  checkRetry,
  guarded,
  type HeadersInput,
  integerIssue,
  isHeaderValue,
  isIntegerIn,
  isRecord,
  MAX_TIMER_MS,
  type RetrySettings,
  snapshot
} from "./checks.js"
import type { SvcIssue } from "./errors.js"
import type { ResolvedOptions, SvcRetryOptions } from "./options.js"

/**
 * The last argument of every method.
 *
 * @example
 * ```ts
 * import type { SvcCallOptions, SvcClient } from "@svc/client"
 *
 * // A request handler hands its own deadline and request id on to svc, and retries once at most.
 * const callOptionsFor = (request: Request): SvcCallOptions => ({
 *   signal: AbortSignal.any([request.signal, AbortSignal.timeout(2000)]),
 *   requestId: request.headers.get("x-request-id") ?? crypto.randomUUID(),
 *   retry: { maxRetries: 1 }
 * })
 * const bannerConsents = (svc: SvcClient, request: Request, subjectId: string) =>
 *   svc.subjects.get(subjectId, { types: ["cookie_banner"] }, callOptionsFor(request))
 * ```
 */
export interface SvcCallOptions {
  /** Aborts the call, including a pending retry wait; the result is `ABORTED`. */
  readonly signal?: AbortSignal | undefined
  /** Overrides the per-attempt timeout (integer 1 to 2147483647 ms). */
  readonly timeoutMs?: number | undefined
  /** Merged over the client's headers for this call (client-owned names are replaced). */
  readonly headers?: HeadersInput | undefined
  /** Overrides the retry settings, or `false`; omitted fields keep the client's values. */
  readonly retry?: SvcRetryOptions | false | undefined
  /** `x-request-id` to send on every attempt; default a random UUID. */
  readonly requestId?: string | undefined
}

/** Call options after validation, merged with the client's. */
export interface ResolvedCall {
  readonly signal: AbortSignal | undefined
  readonly timeoutMs: number
  readonly headers: Readonly<Record<string, string>>
  readonly retry: RetrySettings | false
  readonly requestId: string
}

const known = ["signal", "timeoutMs", "headers", "retry", "requestId"]

const isAbortSignal = (u: unknown): u is AbortSignal =>
  isRecord(u) && typeof u["aborted"] === "boolean" && typeof u["addEventListener"] === "function" &&
  typeof u["removeEventListener"] === "function"

/**
 * Validates call options; issue paths start with `options`. Never throws: a throwing getter or
 * proxy anywhere in the options becomes an issue.
 */
export const resolveCall = (
  input: unknown,
  client: ResolvedOptions
): { readonly call: ResolvedCall } | { readonly issues: ReadonlyArray<SvcIssue> } =>
  guarded(["options"], () => checkCall(input, client), (issue) => ({ issues: [issue] }))

const checkCall = (
  input: unknown,
  client: ResolvedOptions
): { readonly call: ResolvedCall } | { readonly issues: ReadonlyArray<SvcIssue> } => {
  if (input === undefined) {
    return {
      call: {
        signal: undefined,
        timeoutMs: client.timeoutMs,
        headers: client.headers,
        retry: client.retry,
        requestId: crypto.randomUUID()
      }
    }
  }
  const path = ["options"]
  const unreadable: Array<SvcIssue> = []
  const options = snapshot(input, path, unreadable, known)
  if (options === undefined) return { issues: [{ path, message: "must be an object" }] }
  if (unreadable.some((issue) => issue.path.length === path.length)) return { issues: unreadable }
  const issues = checkKnownKeys(options, known, path)
  const { signal, timeoutMs, requestId } = options
  const abortSignal = signal === undefined
    ? undefined
    : guarded([...path, "signal"], () => isAbortSignal(signal) ? signal : undefined, () => undefined)
  if (signal !== undefined && abortSignal === undefined) {
    issues.push({ path: [...path, "signal"], message: "must be an AbortSignal" })
  }
  let timeout = client.timeoutMs
  if (isIntegerIn(timeoutMs, 1, MAX_TIMER_MS)) timeout = timeoutMs
  else if (timeoutMs !== undefined) issues.push(integerIssue([...path, "timeoutMs"], 1, MAX_TIMER_MS))
  const headers = options["headers"] === undefined
    ? { issues: [], headers: {} }
    : checkHeaders(options["headers"], [...path, "headers"])
  issues.push(...headers.issues)
  const retry = options["retry"] === undefined
    ? { issues: [], retry: client.retry }
    : checkRetry(options["retry"], [...path, "retry"], client.retry)
  issues.push(...retry.issues)
  const validRequestId = typeof requestId === "string" && requestId.length > 0 && requestId.length <= 200 &&
      isHeaderValue(requestId)
    ? requestId
    : undefined
  if (requestId !== undefined && validRequestId === undefined) {
    issues.push({
      path: [...path, "requestId"],
      message: "must be a non-empty string of at most 200 visible ASCII characters (inner spaces allowed, " +
        "no control or non-ASCII characters, no surrounding white space)"
    })
  }
  // A call option that could not be read is reported once, not again as invalid.
  const skipped = new Set(unreadable.map((issue) => issue.path[1]))
  const all = [...unreadable, ...issues.filter((issue) => !skipped.has(issue.path[1]))]
  if (all.length > 0) return { issues: all }
  return {
    call: {
      signal: abortSignal,
      timeoutMs: timeout,
      headers: { ...client.headers, ...headers.headers },
      retry: retry.retry,
      requestId: validRequestId ?? crypto.randomUUID()
    }
  }
}
