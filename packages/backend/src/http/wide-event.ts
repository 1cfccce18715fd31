import { Context } from "effect"

/**
 * Fields a handler adds to its request's single log event (for example
 * `consent.decisionSource` on saves). The edge creates one per request and logs it once.
 */
export class WideEvent extends Context.Tag("@svc/backend/WideEvent")<WideEvent, Record<string, unknown>>() {}
