// The postMessage side of the CMP APIs: a script in another frame sends `{ __tcfapiCall: ... }` or
// `{ __gppCall: ... }` (as an object or as its JSON text) and gets the answer back the same way.
import { isRecord, propertyOf } from "../runtime/guards.js"

export type Callback = (data: unknown, success: boolean) => void

/** A value that can be called as an API callback (whatever the caller passed, it gets these two arguments). */
export const isCallback = (value: unknown): value is Callback => typeof value === "function"

/**
 * The window a message came from (a frame's, across origins too: `window` is one of the properties
 * another origin may read); `undefined` for none, a port or a worker, which have no frame to answer.
 */
const windowOf = (source: MessageEventSource | null): Window | undefined =>
  source !== null && "window" in source ? source : undefined

/** The `name` call a message carries (`__tcfapiCall`, `__gppCall`), with a window to answer; else `undefined`. */
export const frameCall = (
  event: MessageEvent,
  name: string
): { call: Record<string, unknown>; reply: (message: unknown) => void } | undefined => {
  let data: unknown = event.data
  if (typeof data === "string") {
    try {
      data = JSON.parse(data)
    } catch {
      return undefined
    }
  }
  const call = propertyOf(data, name)
  const source = windowOf(event.source)
  if (!isRecord(call) || source === undefined) return undefined
  return {
    call,
    reply: (message) => source.postMessage(typeof event.data === "string" ? JSON.stringify(message) : message, "*")
  }
}
