/**
 * UTC months as the partitions of `svc_consents` see them: a month number (years × 12 + month
 * index, so consecutive months are consecutive numbers), its first millisecond, and its
 * partition's name.
 */
export const monthOf = (epochMs: number): number => {
  const date = new Date(epochMs)
  return date.getUTCFullYear() * 12 + date.getUTCMonth()
}

/** The first millisecond (epoch) of a month number. */
export const monthStart = (month: number): number => Date.UTC(Math.floor(month / 12), month % 12, 1)

/** The name of a month's partition: `svc_consents_YYYY_MM`. */
export const monthName = (month: number): string =>
  `svc_consents_${String(Math.floor(month / 12)).padStart(4, "0")}_${String((month % 12) + 1).padStart(2, "0")}`
