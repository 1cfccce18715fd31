import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient, type SqlError, Statement } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { type Duration, Effect, Layer, Scope, Stream } from "effect"
import { makeGroupCommit } from "./group-commit.js"
import { BUSY_WAIT, whileBusy } from "./sqlite-busy.js"

const spanAttributes: ReadonlyArray<readonly [string, unknown]> = [["db.system.name", "sqlite"]]

/**
 * svc's SQLite client: `@effect/sql-sqlite-node` on one better-sqlite3 connection, with
 * - `busy_timeout = 0`: SQLite never waits for a lock on the event loop; a locked statement or
 *   transaction is tried again after a timer (`whileBusy`), for `busyWait` in all, then fails
 *   (the API answers 503 DATABASE_ERROR with Retry-After);
 * - transactions that `BEGIN IMMEDIATE`: the write lock is taken at BEGIN, so a transaction meets
 *   a lock only there and is retried whole, never halfway through;
 * - group commit: transactions that arrive while the connection is busy share one BEGIN and one
 *   COMMIT, so one WAL fsync serves many saves (`group-commit.ts`);
 * - `synchronous = FULL` set explicitly: a connection opening a file already in WAL mode would
 *   otherwise get better-sqlite3's WAL default, NORMAL, which can lose a commit on power failure.
 */
export const makeSqliteClient = (options: { readonly filename: string; readonly busyWait?: Duration.DurationInput }) =>
  Effect.gen(function*() {
    const driver = yield* SqliteClient.make({ filename: options.filename })
    yield* driver`PRAGMA busy_timeout = 0`
    yield* driver`PRAGMA synchronous = FULL`
    const retry = whileBusy(options.busyWait ?? BUSY_WAIT)

    // `reserve` holds the driver's one connection for a scope (its semaphore), as a transaction does.
    const reserve = driver.reserve
    const onReserved = <A>(use: (connection: Connection) => Effect.Effect<A, SqlError.SqlError>) =>
      retry(Effect.scoped(Effect.flatMap(reserve, use)))

    /** Statements outside a transaction: each one retried on its own while the database is locked. */
    const single: Connection = {
      execute: (sql, params, transformRows) => onReserved((c) => c.execute(sql, params, transformRows)),
      executeRaw: (sql, params) => onReserved((c) => c.executeRaw(sql, params)),
      executeValues: (sql, params) => onReserved((c) => c.executeValues(sql, params)),
      executeUnprepared: (sql, params, transformRows) =>
        onReserved((c) => c.executeUnprepared(sql, params, transformRows)),
      executeStream: () => Stream.dieMessage("executeStream is not implemented for SQLite")
    }

    /** The connection held and `BEGIN IMMEDIATE` run; the hold is let go again if BEGIN fails. */
    const beginImmediate = Effect.uninterruptible(
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const connection = yield* Scope.extend(reserve, scope)
        yield* connection.execute("BEGIN IMMEDIATE", [], undefined).pipe(
          Effect.onExit((exit) => exit._tag === "Failure" ? Scope.close(scope, exit) : Effect.void)
        )
        return [scope, connection] as const
      })
    )

    const groups = makeGroupCommit({ begin: retry(beginImmediate) })

    // A transaction is a member of a group: it acquires its place in the group as its connection
    // and runs its savepoint statements as BEGIN, COMMIT and ROLLBACK (`group-commit.ts`).
    // (`reserve` is a member's place too: a connection inside a group's transaction.)
    return yield* SqlClient.make({
      acquirer: Effect.succeed(single),
      transactionAcquirer: groups.member,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes,
      ...groups.statements
    })
  })

/** The `SqlClient` layer for a SQLite file (or `:memory:`), as `makeSqliteClient` describes. */
export const sqliteClientLayer = (
  filename: string,
  busyWait?: Duration.DurationInput
): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.scoped(SqlClient.SqlClient, makeSqliteClient(busyWait === undefined ? { filename } : { filename, busyWait }))
    .pipe(
      Layer.provide(Reactivity.layer)
    )
