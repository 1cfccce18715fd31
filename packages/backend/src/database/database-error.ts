import { HttpApp, HttpServerResponse } from "@effect/platform"
import type { SqlError } from "@effect/sql"
import { DatabaseError, InternalError } from "@svc/api"
import { Effect, Option, type ParseResult, Predicate } from "effect"
import { propertyOf } from "../codec/guards.js"
import { isSchemaMissing, MIGRATE_HINT } from "./schema-state.js"

type StorageFailure = SqlError.SqlError | ParseResult.ParseError

const isStorageFailure = (error: unknown): error is StorageFailure =>
  Predicate.isTagged(error, "SqlError") || Predicate.isTagged(error, "ParseError")

const describeCause = (error: StorageFailure): string => {
  if (error._tag !== "SqlError") return "a stored row did not decode"
  const parts = [propertyOf(error.cause, "code"), propertyOf(error.cause, "message")]
  return parts.filter((part) => part !== undefined).map(String).join(": ")
}

/**
 * The 503 this failure becomes tells the client when to try again (a lock held elsewhere, a
 * restarting server). The API encoder cannot set headers on an error, so a pre-response handler does.
 */
const retryAfter = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(response.status === 503 ? HttpServerResponse.setHeader(response, "retry-after", "2") : response)
)

/**
 * A missing table or column: not transient but a schema nobody migrated. A defect, which the API
 * encodes as `500 INTERNAL_ERROR` (its error schema takes defects too), naming `svc migrate`.
 */
const schemaMissing = (error: StorageFailure) =>
  Effect.logError(`The database schema is missing or out of date: ${MIGRATE_HINT}`).pipe(
    Effect.annotateLogs("cause", describeCause(error)),
    Effect.zipRight(
      Effect.die(new InternalError({ message: "The database schema is missing or out of date; run `svc migrate`" }))
    )
  )

/**
 * The one place a repository failure (SqlError, or a row that does not decode) becomes the API's
 * `DATABASE_ERROR`: the detail goes to the server log only, the client gets a generic message.
 * A missing table or column answers `500 INTERNAL_ERROR` naming `svc migrate` instead (see
 * `schemaMissing`). Other failures pass through unchanged.
 */
export const orDatabaseError = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, StorageFailure> | DatabaseError, R> =>
  Effect.catchIf(
    lostCommitAsFailure(effect),
    isStorageFailure,
    (error) =>
      isSchemaMissing(error) ? schemaMissing(error) : Effect.logError(`database failure: ${error.message}`).pipe(
        Effect.annotateLogs("cause", describeCause(error)),
        Effect.zipRight(retryAfter),
        Effect.zipRight(Effect.fail(new DatabaseError({ message: "The database is unavailable; try again later" })))
      )
  )

/**
 * `@effect/sql` turns a COMMIT or ROLLBACK that fails into a defect. That is a connection lost at
 * the end of a transaction (a primary killed or demoted): whether the COMMIT took is unknown, so it
 * is answered as any database failure, 503 with Retry-After, and the retried save finds its stored
 * record if it did. Other defects stay defects.
 */
const lostCommitAsFailure = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StorageFailure, R> =>
  Effect.catchSomeDefect(
    effect,
    (defect) =>
      isStorageFailure(defect) && defect._tag === "SqlError" ? Option.some(Effect.fail(defect)) : Option.none()
  )

/** Rows a write changed, read from the driver's raw result (sqlite `changes`, pg `rowCount`, mysql `affectedRows`). */
export const changedRows = (raw: unknown): number => {
  const n = propertyOf(raw, "changes") ?? propertyOf(raw, "rowCount") ?? propertyOf(raw, "affectedRows")
  return typeof n === "number" ? n : typeof n === "bigint" ? Number(n) : 0
}
