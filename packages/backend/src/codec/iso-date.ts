/**
 * `Date.prototype.toISOString` of a time in the years 0000 to 9999, from its epoch milliseconds
 * (`undefined` outside them, where the caller formats it the usual way). The same text, in about a
 * fifth of V8's time: every answer formats each of its times (a subject of 200 records has over a
 * thousand), and `toISOString` was the largest single cost of encoding one. Equal to
 * `toISOString` over the whole range (`compiled-codec.test.ts`).
 */

/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z, the four-digit years `toISOString` writes unsigned. */
const FIRST = -62_167_219_200_000
const LAST = 253_402_300_799_999
const DAY_MS = 86_400_000

const twoDigits: ReadonlyArray<string> = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, "0"))
const threeDigits: ReadonlyArray<string> = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"))

export const isoDateString = (ms: number): string | undefined => {
  if (!(ms >= FIRST && ms <= LAST) || !Number.isInteger(ms)) return undefined
  const days = Math.floor(ms / DAY_MS)
  let rest = ms - days * DAY_MS
  // The civil date of a day count (the proleptic Gregorian calendar in 400-year eras).
  const shifted = days + 719_468
  const era = Math.floor(shifted / 146_097)
  const dayOfEra = shifted - era * 146_097
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365
  )
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153)
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  const hours = Math.floor(rest / 3_600_000)
  rest -= hours * 3_600_000
  const minutes = Math.floor(rest / 60_000)
  rest -= minutes * 60_000
  const seconds = Math.floor(rest / 1000)
  return `${year >= 1000 ? year : String(year).padStart(4, "0")}-${twoDigits[month]}-${twoDigits[day]}T${
    twoDigits[hours]
  }:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[rest - seconds * 1000]}Z`
}
