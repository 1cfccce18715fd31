import type { SvcError } from "./errors.js"

/*
 * `path` is the route template (`/subjects/:id`), never the filled-in path: subject ids are a
 * private capability and must not reach logs, and templates keep metric labels few.
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

export interface SvcResponseEvent extends Omit<SvcRequestEvent, "type"> {
  readonly type: "response"
  readonly status: number
  /** From sending the request to the end of reading the body. */
  readonly durationMs: number
}

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
