import type { SqlError } from "@effect/sql"
import { DatabaseError } from "@svc/api"
import { Effect, type ParseResult } from "effect"

type StorageFailure = SqlError.SqlError | ParseResult.ParseError

const isStorageFailure = (error: unknown): error is StorageFailure => {
  const tag = (error as { _tag?: unknown } | null)?._tag
  return tag === "SqlError" || tag === "ParseError"
}

const describeCause = (error: StorageFailure): string => {
  if (error._tag !== "SqlError") return "a stored row did not decode"
  const cause = error.cause as { message?: unknown; code?: unknown } | undefined
  return [cause?.code, cause?.message].filter((part) => part !== undefined).map(String).join(": ")
}

/**
 * The one place a repository failure (SqlError, or a row that does not decode) becomes the API's
 * `DATABASE_ERROR`: the detail goes to the server log only, the client gets a generic message.
 * Other failures pass through unchanged.
 */
export const orDatabaseError = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, StorageFailure> | DatabaseError, R> =>
  Effect.catchIf(
    effect,
    isStorageFailure,
    (error) =>
      Effect.logError(`database failure: ${error.message}`).pipe(
        Effect.annotateLogs("cause", describeCause(error)),
        Effect.zipRight(Effect.fail(new DatabaseError({ message: "The database is unavailable; try again later" })))
      )
  ) as Effect.Effect<A, Exclude<E, StorageFailure> | DatabaseError, R>

/** Rows a write changed, read from the driver's raw result (sqlite `changes`, pg `rowCount`, mysql `affectedRows`). */
export const changedRows = (raw: unknown): number => {
  const result = raw as { changes?: unknown; rowCount?: unknown; affectedRows?: unknown } | null
  const n = result?.changes ?? result?.rowCount ?? result?.affectedRows
  return typeof n === "number" ? n : typeof n === "bigint" ? Number(n) : 0
}
