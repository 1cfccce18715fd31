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

/** True when the string is a bare calendar date (`2026-01-31`) without a time. */
export const isBareDate = (input: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(input)

/** An ISO 8601 string, checked strictly, decoded to a `Date`; encoded as ISO 8601 UTC. */
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

/** Epoch milliseconds decoded to a `Date`. */
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
 */
export const TimeInput = Schema.Union(IsoDateString, EpochMillis).annotations({
  identifier: "TimeInput",
  description: "Epoch milliseconds or an ISO 8601 string"
})

/** A time in a response body: ISO 8601 UTC on the wire, `Date` once decoded. */
export const Timestamp = Schema.Date.annotations({ identifier: "Timestamp", description: "ISO 8601 UTC" })
