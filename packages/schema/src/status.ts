import { Schema } from "effect"
import { EventDeliveryCounts } from "./events.js"
import { LocationSource } from "./manifest.js"
import { Timestamp } from "./time.js"

/**
 * `GET /status`. `client` describes the caller as the backend sees it.
 *
 * @example
 * ```ts
 * import { Status } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A nightly check: which version runs, how old its IP database is, and whether events pile up.
 * const response = await fetch("https://consent.example.com/status")
 * const status = Schema.decodeUnknownSync(Status)(await response.json())
 * const ipDatabase = status.geo?.buildDate?.toISOString().slice(0, 10) ?? "none"
 * console.log(`svc ${status.version}, IP database of ${ipDatabase}`)
 * if (status.events !== undefined && status.events.failed > 0) {
 *   console.warn(`${status.events.failed} event deliveries were given up`)
 * }
 * ```
 */
export const Status = Schema.Struct({
  status: Schema.Literal("ok"),
  version: Schema.String,
  timestamp: Timestamp,
  client: Schema.Struct({
    ip: Schema.NullOr(Schema.String),
    userAgent: Schema.NullOr(Schema.String),
    acceptLanguage: Schema.NullOr(Schema.String),
    country: Schema.NullOr(Schema.String),
    region: Schema.NullOr(Schema.String),
    /** Where `country` came from (overrides are `/init`'s alone, so never `override` here). */
    locationSource: Schema.optional(LocationSource)
  }),
  /**
   * The IP location database `/init` looks client IPs up in, and its build date: `built-in` (IP
   * Geolocation by DB-IP, CC BY 4.0), `file` (the operator's `geo.database`), or `none`.
   */
  geo: Schema.optional(Schema.Struct({
    database: Schema.Literal("built-in", "file", "none"),
    buildDate: Schema.NullOr(Timestamp)
  })),
  /** Consent event deliveries waiting and given up, and endpoints a 410 disabled; only when a sink is configured. */
  events: Schema.optional(EventDeliveryCounts)
}).annotations({ identifier: "Status" })
export type Status = typeof Status.Type
