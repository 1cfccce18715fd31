import { Schema } from "effect"
import { EventDeliveryCounts } from "./events.js"
import { Timestamp } from "./time.js"

/** `GET /status`. `client` describes the caller as the backend sees it. */
export const Status = Schema.Struct({
  status: Schema.Literal("ok"),
  version: Schema.String,
  timestamp: Timestamp,
  client: Schema.Struct({
    ip: Schema.NullOr(Schema.String),
    userAgent: Schema.NullOr(Schema.String),
    acceptLanguage: Schema.NullOr(Schema.String),
    country: Schema.NullOr(Schema.String),
    region: Schema.NullOr(Schema.String)
  }),
  /** Consent event deliveries waiting and given up, and endpoints a 410 disabled; only when a sink is configured. */
  events: Schema.optional(EventDeliveryCounts)
}).annotations({ identifier: "Status" })
export type Status = typeof Status.Type
