// The page globals the bundles read and write, declared on `Window` once.
import type { Embedded } from "./config.js"
import type { SvcApi } from "./runtime.js"

declare global {
  interface Navigator {
    /** The Global Privacy Control signal (absent in browsers that do not send it). */
    readonly globalPrivacyControl?: boolean
  }
  interface Window {
    /** The defaults the script route embeds in the bundle it serves. */
    __SVC_EMBEDDED__?: Embedded
    /** The page's own config, set before the tag. */
    svcConfig?: unknown
    /** The commands the page queues before the tag loads; the runtime once it has. */
    svc?: Array<unknown> | SvcApi
    /** Google's tag queue (Consent Mode). */
    dataLayer?: Array<unknown>
    /** The IAB TCF API; the IAB stub keeps the calls it queued in `a`. */
    __tcfapi?: ((...args: Array<unknown>) => void) & { a?: Array<Array<unknown>> }
    /** The IAB GPP API (the IAB stub answers a call without arguments with its queue). */
    __gpp?: (...args: Array<unknown>) => unknown
  }
}
