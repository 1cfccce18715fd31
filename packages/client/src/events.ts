import type { SvcError } from "./errors.js"

/*
 * `path` is the route template (`/subjects/:id`), never the filled-in path: subject ids are a
 * private capability and must not reach logs, and templates keep metric labels few.
 */

/**
 * `onEvent`'s event as an attempt is sent. `path` is the route template (`/subjects/:id`), never the
 * filled-in path.
 *
 * @example
 * ```ts
 * import { createSvcClient, type SvcRequestEvent } from "@svc/client"
 *
 * // Count the attempts per route, first tries and retries apart, for a dashboard.
 * const attempts = new Map<string, number>()
 * const countAttempt = (event: SvcRequestEvent) => {
 *   const key = `${event.method} ${event.path} ${event.attempt === 0 ? "first" : "retry"}`
 *   attempts.set(key, (attempts.get(key) ?? 0) + 1)
 * }
 * const svc = createSvcClient({
 *   baseUrl: "https://consent.example.com",
 *   onEvent: (event) => {
 *     if (event.type === "request") countAttempt(event)
 *   }
 * })
 * ```
 */
export interface SvcRequestEvent {
  readonly type: "request"
  /** HTTP method. */
  readonly method: string
  readonly path: string
  readonly requestId: string
  /** Counted from 0. */
  readonly attempt: number
}

/**
 * `onEvent`'s event once an attempt's response was read: its status and how long it took.
 *
 * @example
 * ```ts
 * import type { SvcResponseEvent } from "@svc/client"
 *
 * // A latency log for slow answers only; the template path keeps subject ids out of the log.
 * const logSlow = (event: SvcResponseEvent) => {
 *   if (event.durationMs > 500) {
 *     const ms = Math.round(event.durationMs)
 *     console.warn(`svc ${event.method} ${event.path} ${event.status} took ${ms} ms`, event.requestId)
 *   }
 * }
 * ```
 */
export interface SvcResponseEvent extends Omit<SvcRequestEvent, "type"> {
  readonly type: "response"
  readonly status: number
  /** From sending the request to the end of reading the body. */
  readonly durationMs: number
}

/**
 * `onEvent`'s event before a retry: the attempt about to be made, the wait, and why the last one failed.
 *
 * @example
 * ```ts
 * import type { SvcRetryEvent } from "@svc/client"
 *
 * // Retries are normal; a log line per retry says which failure caused it and how long the wait is.
 * const logRetry = (event: SvcRetryEvent) =>
 *   console.info(
 *     `svc ${event.path}: attempt ${event.attempt} in ${event.delayMs} ms after ${event.error.code}`,
 *     { requestId: event.requestId, status: event.error.status }
 *   )
 * ```
 */
export interface SvcRetryEvent {
  readonly type: "retry"
  readonly path: string
  /** The attempt about to be made (1 for the first retry). */
  readonly attempt: number
  readonly delayMs: number
  /** Why the previous attempt failed. */
  readonly error: SvcError
  readonly requestId: string
}

/**
 * What `onEvent` receives: one event per request, response and retry. A handler that throws is ignored.
 *
 * @example
 * ```ts
 * import { createSvcClient, type SvcEvent } from "@svc/client"
 *
 * // One handler for all three kinds, as debug lines.
 * const debug = (event: SvcEvent) => {
 *   switch (event.type) {
 *     case "request": return console.debug(`→ ${event.method} ${event.path} #${event.attempt}`)
 *     case "response": return console.debug(`← ${event.status} ${event.path} in ${event.durationMs} ms`)
 *     case "retry": return console.debug(`↻ ${event.path} after ${event.error.code}, waiting ${event.delayMs} ms`)
 *   }
 * }
 * const svc = createSvcClient({ baseUrl: "https://consent.example.com", onEvent: debug })
 * ```
 */
export type SvcEvent = SvcRequestEvent | SvcResponseEvent | SvcRetryEvent

/** Calls the handler; whatever it throws or rejects with is ignored. */
export const emit = (handler: ((event: SvcEvent) => void) | undefined, event: SvcEvent): void => {
  if (handler === undefined) return
  try {
    const returned: unknown = handler(event)
    if (typeof returned === "object" && returned !== null && "then" in returned) {
      Promise.resolve(returned).catch(() => undefined)
    }
  } catch {
    // A logging hook must never change the outcome of a call.
  }
}
