import { InvalidRequest } from "@svc/api"
import { isBareDate, parseIsoDate } from "@svc/schema"
import { Either } from "effect"

const DAY_MS = 86_400_000

/**
 * The filter of one summary: an inclusive window of `given_at` epoch milliseconds (either end
 * `null` when unbounded) and an optional exact domain.
 */
export interface SummaryWindow {
  readonly fromMs: number | null
  readonly toMs: number | null
  readonly domain: string | null
}

const bound = (name: "from" | "to", input: string | undefined): Either.Either<number | null, InvalidRequest> => {
  if (input === undefined) return Either.right(null)
  const trimmed = input.trim()
  const date = parseIsoDate(trimmed)
  if (date === undefined) {
    return Either.left(
      new InvalidRequest({
        message: `${name}: expected an ISO 8601 date (2026-01-31) or date-time (2026-01-31T12:00:00Z), got ${
          JSON.stringify(input)
        }`
      })
    )
  }
  // A bare `to` date covers its whole UTC day: the window ends on that day's last millisecond.
  return Either.right(name === "to" && isBareDate(trimmed) ? date.getTime() + DAY_MS - 1 : date.getTime())
}

/**
 * Reads `from`, `to` and `domain` of `GET /experiments/:id/summary`. Both bounds are inclusive;
 * a bare date starts (`from`) or ends (`to`) on a whole UTC day.
 */
export const parseSummaryWindow = (params: {
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly domain?: string | undefined
}): Either.Either<SummaryWindow, InvalidRequest> =>
  Either.gen(function*() {
    const fromMs = yield* bound("from", params.from)
    const toMs = yield* bound("to", params.to)
    if (fromMs !== null && toMs !== null && fromMs > toMs) {
      return yield* Either.left(
        new InvalidRequest({
          message: `from (${new Date(fromMs).toISOString()}) is after to (${new Date(toMs).toISOString()})`
        })
      )
    }
    let domain: string | null = null
    if (params.domain !== undefined) {
      domain = params.domain.trim()
      if (domain === "" || domain.length > 255) {
        return yield* Either.left(
          new InvalidRequest({ message: "domain: expected a non-empty domain of at most 255 characters" })
        )
      }
    }
    return { fromMs, toMs, domain }
  })
