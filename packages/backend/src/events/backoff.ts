/** Retry settings of `events.delivery.retry`, resolved. */
export interface RetrySchedule {
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly giveUpAfterMs: number
}

/**
 * Exponential backoff with full jitter: after the `failures`-th failed attempt, a delay drawn
 * uniformly from [0, min(maxDelayMs, baseDelayMs * 2^(failures-1))). `random` is in [0, 1).
 */
export const backoffDelay = (schedule: RetrySchedule, failures: number, random: number): number => {
  const window = Math.min(schedule.maxDelayMs, schedule.baseDelayMs * 2 ** Math.min(Math.max(failures - 1, 0), 52))
  return Math.floor(random * window)
}

/**
 * When to try a failed delivery again, or `undefined` to give up: once the event is older than
 * `giveUpAfterMs`. A receiver's `Retry-After` wins over the drawn delay.
 */
export const nextAttemptAt = (
  schedule: RetrySchedule,
  input: {
    readonly now: number
    readonly createdAt: number
    readonly failures: number
    readonly random: number
    readonly retryAfterMs?: number | undefined
  }
): number | undefined => {
  if (input.now - input.createdAt >= schedule.giveUpAfterMs) return undefined
  const delay = input.retryAfterMs ?? backoffDelay(schedule, input.failures, input.random)
  return input.now + delay
}
