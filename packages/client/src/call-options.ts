import { checkHeaders, checkInteger, checkKnownKeys, checkRetry, type HeadersInput, isHeaderValue, isRecord, MAX_TIMER_MS, type RetrySettings } from "./checks.js"
import type { SvcIssue } from "./errors.js"
import type { ResolvedOptions, SvcRetryOptions } from "./options.js"

/** The last argument of every method. */
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

/** Validates call options; issue paths start with `options`. */
export const resolveCall = (
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
  if (!isRecord(input)) return { issues: [{ path, message: "must be an object" }] }
  const issues: Array<SvcIssue> = checkKnownKeys(input, known, path)
  const { signal, timeoutMs, requestId } = input
  if (signal !== undefined && !isAbortSignal(signal)) {
    issues.push({ path: [...path, "signal"], message: "must be an AbortSignal" })
  }
  if (timeoutMs !== undefined) issues.push(...checkInteger(timeoutMs, [...path, "timeoutMs"], 1, MAX_TIMER_MS))
  const headers = input["headers"] === undefined ? { issues: [], headers: {} } : checkHeaders(input["headers"], [...path, "headers"])
  issues.push(...headers.issues)
  const retry = input["retry"] === undefined ? { issues: [], retry: client.retry } : checkRetry(input["retry"], [...path, "retry"], client.retry)
  issues.push(...retry.issues)
  if (
    requestId !== undefined &&
    (typeof requestId !== "string" || requestId.length === 0 || requestId.length > 200 || !isHeaderValue(requestId) ||
      requestId.trim() !== requestId)
  ) {
    issues.push({ path: [...path, "requestId"], message: "must be a non-empty header-safe string of at most 200 characters" })
  }
  if (issues.length > 0) return { issues }
  return {
    call: {
      signal: signal as AbortSignal | undefined,
      timeoutMs: (timeoutMs as number | undefined) ?? client.timeoutMs,
      headers: { ...client.headers, ...headers.headers },
      retry: retry.retry,
      requestId: (requestId as string | undefined) ?? crypto.randomUUID()
    }
  }
}
