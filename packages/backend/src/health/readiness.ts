import { SqlClient } from "@effect/sql"
import { NotReady } from "@svc/api"
import { Cause, Effect } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { isSchemaMissing, MIGRATE_HINT, pendingMigrations } from "../database/schema-state.js"
import { Draining } from "./draining.js"
import { sqliteFileCheck } from "./sqlite-file.js"

/** How long the readiness query may take before the database counts as unreachable. */
export const READY_TIMEOUT_MS = 1_000

/** Why the instance is not ready: the public message, and what only the log gets. */
interface Unready {
  readonly message: string
  readonly detail?: string
}

const unreachable = (detail: string): Unready => ({ message: "The database is unreachable", detail })

/**
 * `GET /health/ready`: one query of `svc_migrations` within {@link READY_TIMEOUT_MS} proves the
 * database answers and tells whether its schema is current; on SQLite the configured path must
 * still name the file svc opened; a draining server is never ready. Each change of the answer is
 * logged once (a warning when it turns unready, with the driver's detail; info when it is back),
 * so probes every few seconds do not repeat it.
 */
export class Readiness extends Effect.Service<Readiness>()("@svc/backend/Readiness", {
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const sql = yield* SqlClient.SqlClient
    const draining = yield* Draining
    const sqliteFile = config.database._tag === "Url" && config.database.dialect === "sqlite"
      ? sqliteFileCheck(config.database.url)
      : undefined
    let lastMessage: string | undefined

    const schemaState: Effect.Effect<Unready | undefined> = pendingMigrations.pipe(
      Effect.provideService(SqlClient.SqlClient, sql),
      // The answer must not wait for the query's interruption either: on a hung Postgres the
      // driver's cancel waits on the same dead connection (6 s before this, in the hang test).
      Effect.disconnect,
      Effect.timeout(READY_TIMEOUT_MS),
      Effect.map((pending) =>
        pending.length === 0 ? undefined : {
          message: `The database schema is ${pending.length} migration(s) behind (${
            pending.join(", ")
          }); ${MIGRATE_HINT}`
        }
      ),
      Effect.catchAllCause((cause): Effect.Effect<Unready> => {
        const failure = Cause.squash(cause)
        if (Cause.isTimeoutException(failure)) {
          return Effect.succeed({ message: `The database did not answer within ${READY_TIMEOUT_MS} ms` })
        }
        if (isSchemaMissing(failure)) {
          return Effect.succeed({ message: `The database schema is not migrated; ${MIGRATE_HINT}` })
        }
        return Effect.succeed(unreachable(failure instanceof Error ? failure.message : String(failure)))
      })
    )

    const state: Effect.Effect<Unready | undefined> = Effect.suspend(() => {
      if (draining()) return Effect.succeed({ message: "The server is shutting down" })
      if (sqliteFile !== undefined && !sqliteFile()) {
        return Effect.succeed({
          message: "The database is unreachable",
          detail: "the SQLite file was moved, deleted or replaced since svc opened it"
        })
      }
      return schemaState
    })

    /** Logs the answer when it differs from the previous one. */
    const noteChange = (unready: Unready | undefined) => {
      const message = unready?.message
      if (message === lastMessage) return Effect.void
      const was = lastMessage
      lastMessage = message
      if (unready === undefined) return Effect.logInfo(`ready again (was: ${was})`)
      return Effect.logWarning(`not ready: ${unready.message}`).pipe(
        Effect.annotateLogs(unready.detail === undefined ? {} : { cause: unready.detail })
      )
    }

    /** Succeeds when ready; fails with `NotReady` naming the reason. */
    const check: Effect.Effect<void, NotReady> = Effect.flatMap(
      state,
      (unready) =>
        Effect.zipRight(
          noteChange(unready),
          unready === undefined ? Effect.void : Effect.fail(new NotReady({ message: unready.message }))
        )
    )
    return { check } as const
  })
}) {}
