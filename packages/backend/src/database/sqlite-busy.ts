import { type Duration, Effect, Predicate, Schedule } from "effect"
import { propertyOf } from "../codec/guards.js"

/**
 * SQLite lock waits that never block the event loop. better-sqlite3 is synchronous: with a
 * `busy_timeout` a statement that meets another process's lock waits on the event loop and stalls
 * every request. svc's SQLite connection therefore never waits inside SQLite (busy_timeout 0); a
 * statement or transaction that meets a lock fails with SQLITE_BUSY at once and is tried again here
 * after a timer, while other requests are served.
 */

/** A SQLite "database is locked" failure (SQLITE_BUSY and its extended codes), worth trying again. */
export const isBusy = (error: unknown): boolean => {
  if (!Predicate.isTagged(error, "SqlError")) return false
  const code = propertyOf(propertyOf(error, "cause"), "code")
  return typeof code === "string" && code.startsWith("SQLITE_BUSY")
}

/** How long a statement or transaction keeps trying while the database is locked: the old busy_timeout. */
export const BUSY_WAIT = "5 seconds"

/** Jittered backoff from 2 ms, at most 100 ms between tries, for `total` in all. */
const busySchedule = (total: Duration.DurationInput) =>
  Schedule.exponential("2 millis").pipe(
    Schedule.union(Schedule.spaced("100 millis")),
    Schedule.jittered,
    Schedule.upTo(total)
  )

/**
 * Runs `attempt` again while it fails with SQLITE_BUSY, for `total` at most; then its last failure
 * stands. Only a whole unit may be tried again: a statement outside any transaction, or a whole
 * transaction, never a statement inside one. The wait is interruptible; each attempt is not.
 */
export const whileBusy = (total: Duration.DurationInput = BUSY_WAIT) => {
  const schedule = busySchedule(total)
  // The first try runs bare: the retry machinery is set up only once the database is found locked.
  return <A, E, R>(attempt: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.catchIf(attempt, isBusy, () => Effect.retry(attempt, { schedule, while: isBusy }))
}
