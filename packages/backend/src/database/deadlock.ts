import { Effect, Predicate, Schedule } from "effect"
import { propertyOf } from "../codec/guards.js"

/**
 * Driver codes of a transaction the database rolled back to break a deadlock (or a serialization
 * failure). Not SQLITE_BUSY: svc's SQLite client already waits out a lock for its whole bound
 * (sqlite-client.ts); retrying here would multiply that wait.
 */
const retryableCodes: ReadonlySet<unknown> = new Set(["ER_LOCK_DEADLOCK", 1213, "40P01", "40001"])

const isDeadlock = (error: unknown): boolean => {
  if (!Predicate.isTagged(error, "SqlError")) return false
  const cause = propertyOf(error, "cause")
  return retryableCodes.has(propertyOf(cause, "code")) || retryableCodes.has(propertyOf(cause, "errno"))
}

/**
 * Runs a whole transaction again when the database chose it as a deadlock victim (MySQL, for one,
 * deadlocks two inserts of a key a third transaction just deleted, and says "try restarting
 * transaction"). A few tries with a short jittered pause; anything else fails as before.
 */
export const retryDeadlocks = <A, E, R>(transaction: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  // The schedule (its driver, the iteration metadata it provides each attempt) is set up only once
  // a deadlock happened: the first attempt, almost always the only one, runs as it is. The retry
  // starts from that failure (handed back as its first attempt), so the pauses and the number of
  // tries are the schedule's exactly.
  Effect.catchIf(transaction, isDeadlock, (deadlock) => {
    let replayed = false
    const attempt = Effect.suspend(() => {
      if (replayed) return transaction
      replayed = true
      return Effect.fail(deadlock)
    })
    return Effect.retry(attempt, { while: isDeadlock, schedule: deadlockRetries })
  })

/** Built once: a schedule is an immutable description, and every save runs through this retry. */
const deadlockRetries = Schedule.jittered(Schedule.exponential("5 millis")).pipe(Schedule.intersect(Schedule.recurs(4)))
