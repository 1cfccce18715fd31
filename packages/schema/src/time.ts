import { ParseResult, Schema } from "effect"

// ISO 8601 as used on the wire: a calendar date, optionally followed by a time and an offset.
const isoPattern = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/

/** `Date.UTC` reads years 0–99 as 1900–1999; set the full year explicitly. */
const utc = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millis = 0): number => {
  const date = new Date(Date.UTC(2000, 0, 1, hour, minute, second, millis))
  date.setUTCFullYear(year, month, day)
  return date.getTime()
}

const daysInMonth = (year: number, month: number): number => new Date(utc(year, month, 0)).getUTCDate()

/**
 * Parses an ISO 8601 date or date-time strictly. `Date.parse` rolls impossible dates over
 * (`2025-02-30` becomes March 2nd), which would silently store a different day than was sent.
 * A bare date is midnight UTC; a date-time without an offset is read as UTC.
 *
 * @example
 * ```ts
 * import { parseIsoDate } from "@svc/schema"
 *
 * parseIsoDate("2026-01-31") // 2026-01-31T00:00:00.000Z: a bare date is midnight UTC
 * parseIsoDate("2026-01-31T10:00:00+01:00") // 2026-01-31T09:00:00.000Z
 * parseIsoDate("2025-02-30") // undefined, where Date.parse would give March 2nd
 * ```
 */
export const parseIsoDate = (input: string): Date | undefined => {
  const m = isoPattern.exec(input)
  if (m === null) return undefined
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)]
  if (hour > 23 || minute > 59 || second > 59) return undefined
  if (m[4] === undefined) return new Date(utc(year, month - 1, day))
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"))
  let offsetMinutes = 0
  const zone = m[8]
  if (zone !== undefined && zone !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1
    const digits = zone.slice(1).replace(":", "")
    const oh = Number(digits.slice(0, 2))
    const om = Number(digits.slice(2, 4))
    if (oh > 23 || om > 59) return undefined
    offsetMinutes = sign * (oh * 60 + om)
  }
  return new Date(utc(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000)
}

/**
 * True when the string is a bare calendar date (`2026-01-31`) without a time.
 *
 * @example
 * ```ts
 * import { isBareDate, parseIsoDate } from "@svc/schema"
 *
 * // A report's `to` bound: a bare date covers the whole day, as svc reads it.
 * const endOf = (to: string) => {
 *   const date = parseIsoDate(to)
 *   return date !== undefined && isBareDate(to) ? new Date(date.getTime() + 86_399_999) : date
 * }
 * endOf("2026-01-31") // 2026-01-31T23:59:59.999Z
 * ```
 */
export const isBareDate = (input: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(input)

/**
 * An ISO 8601 string, checked strictly, decoded to a `Date`; encoded as ISO 8601 UTC.
 *
 * @example
 * ```ts
 * import { IsoDateString } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The `--since` argument of a report script, refused when it is not a real date.
 * const since = Schema.decodeUnknownSync(IsoDateString)(process.env.REPORT_SINCE ?? "2026-01-01")
 * Schema.encodeSync(IsoDateString)(since) // "2026-01-01T00:00:00.000Z"
 * ```
 */
export const IsoDateString = Schema.transformOrFail(Schema.String, Schema.DateFromSelf, {
  strict: true,
  decode: (input, _, ast) => {
    const date = parseIsoDate(input)
    return date === undefined
      ? ParseResult.fail(new ParseResult.Type(ast, input, `Expected an ISO 8601 date, got ${JSON.stringify(input)}`))
      : ParseResult.succeed(date)
  },
  encode: (date) => ParseResult.succeed(date.toISOString())
}).annotations({ identifier: "IsoDateString", description: "ISO 8601 date or date-time" })

/**
 * Epoch milliseconds decoded to a `Date`.
 *
 * @example
 * ```ts
 * import { EpochMillis } from "@svc/schema"
 * import { Either, Schema } from "effect"
 *
 * // Browsers send `Date.now()`; negative or fractional numbers are refused.
 * Schema.decodeUnknownSync(EpochMillis)(1768471200000) // 2026-01-15T10:00:00.000Z
 * Either.isLeft(Schema.decodeUnknownEither(EpochMillis)(1768471200000.5)) // true
 * ```
 */
export const EpochMillis = Schema.transformOrFail(Schema.Number, Schema.DateFromSelf, {
  strict: true,
  decode: (input, _, ast) =>
    Number.isSafeInteger(input) && input >= 0
      ? ParseResult.succeed(new Date(input))
      : ParseResult.fail(new ParseResult.Type(ast, input, "Expected non-negative integer epoch milliseconds")),
  encode: (date) => ParseResult.succeed(date.getTime())
}).annotations({ identifier: "EpochMillis" })

/**
 * A time in a request body: epoch milliseconds or an ISO 8601 string (a fixed wire choice).
 * Encodes back to ISO 8601, so the typed client always sends the string form.
 *
 * @example
 * ```ts
 * import { TimeInput } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The app's own endpoint takes times the way svc does.
 * const Reminder = Schema.Struct({ userId: Schema.String, remindAt: TimeInput })
 * const fromMillis = Schema.decodeUnknownSync(Reminder)({ userId: "user-42", remindAt: 1768471200000 })
 * const fromIso = Schema.decodeUnknownSync(Reminder)({ userId: "user-42", remindAt: "2026-01-15T10:00:00Z" })
 * Schema.encodeSync(Reminder)(fromMillis) // { userId: "user-42", remindAt: "2026-01-15T10:00:00.000Z" }, as fromIso
 * ```
 */
export const TimeInput = Schema.Union(IsoDateString, EpochMillis).annotations({
  identifier: "TimeInput",
  description: "Epoch milliseconds or an ISO 8601 string"
})

/**
 * A time in a response body: ISO 8601 UTC on the wire, `Date` once decoded.
 *
 * @example
 * ```ts
 * import { Timestamp } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The app caches svc's current privacy policy with the time it was read.
 * const CachedRelease = Schema.Struct({ version: Schema.String, readAt: Timestamp })
 * const cached = Schema.decodeUnknownSync(CachedRelease)({ version: "2026-02", readAt: "2026-02-03T08:15:00.000Z" })
 * cached.readAt.getTime() // 1770106500000
 * ```
 */
export const Timestamp = Schema.Date.annotations({ identifier: "Timestamp", description: "ISO 8601 UTC" })
