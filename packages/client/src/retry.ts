import type { RetrySettings } from "./checks.js"
import type { SvcError } from "./errors.js"

const retryStatuses: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504])

/** Retry rule 1: network errors, timeouts and these statuses; also what `error.retryable` reports. */
export const isTransient = (code: string, status: number | undefined): boolean =>
  code === "NETWORK_ERROR" || code === "TIMEOUT" || (status !== undefined && retryStatuses.has(status))

/** `Retry-After` as a delay in ms: delay-seconds or an HTTP date; `undefined` when absent or unreadable. */
export const parseRetryAfter = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  // An HTTP date (any of its three forms) starts with the weekday; this keeps junk out of Date.parse.
  if (!/^[A-Za-z]{3,9},?\s/.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/**
 * The wait before the next attempt, or `undefined` to stop. `retriesDone` counts retries already made.
 * Rule 2: full jitter, up to `initialDelayMs * 2^retriesDone`, capped at `maxDelayMs`.
 * Rule 3: `Retry-After` replaces the backoff; longer than `maxDelayMs` stops retrying.
 */
export const nextDelay = (
  error: SvcError,
  retryAfter: string | undefined,
  retriesDone: number,
  settings: RetrySettings | false,
  random: () => number = Math.random
): number | undefined => {
  if (settings === false || retriesDone >= settings.maxRetries || !isTransient(error.code, error.status)) {
    return undefined
  }
  const after = parseRetryAfter(retryAfter, Date.now())
  if (after !== undefined) return after > settings.maxDelayMs ? undefined : after
  const cap = Math.min(settings.maxDelayMs, settings.initialDelayMs * 2 ** retriesDone)
  return Math.floor(random() * (cap + 1))
}
