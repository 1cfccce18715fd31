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

    // `reserve` holds the driver's one connection for a scope (its semaphore), as a group does.
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

    // The client `@effect/sql` builds: statements, `reserve` (the one connection for a scope) and
    // nested transactions (its own savepoints, on the connection of the transaction around them).
    const client = yield* SqlClient.make({
      acquirer: Effect.succeed(single),
      transactionAcquirer: reserve,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes
    })
    // A transaction not inside another is a member of a group (`group-commit.ts`).
    const withTransaction: SqlClient.SqlClient["withTransaction"] = (effect) =>
      Effect.flatMap(
        Effect.serviceOption(SqlClient.TransactionConnection),
        (outer) => outer._tag === "Some" ? client.withTransaction(effect) : groups.transaction(effect)
      )
    return withOwnTransactions(client, withTransaction)
  })

/**
 * A new client that is `client` but for `withTransaction`: a wrapper, `client` itself is left as
 * `@effect/sql` built it. Statements made through either run on the connection the fiber's
 * `TransactionConnection` names, so they run inside the wrapper's transactions.
 */
const withOwnTransactions = (
  client: SqlClient.SqlClient,
  withTransaction: SqlClient.SqlClient["withTransaction"]
): SqlClient.SqlClient => {
  const statement = function(this: unknown, ...args: Array<unknown>): unknown {
    return Reflect.apply(client, this, args)
  }
  const wrapper = Object.assign(statement, client, { withTransaction })
  return Object.assign(wrapper, { safe: wrapper })
}

/** The `SqlClient` layer for a SQLite file (or `:memory:`), as `makeSqliteClient` describes. */
export const sqliteClientLayer = (
  filename: string,
  busyWait?: Duration.DurationInput
): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.scoped(SqlClient.SqlClient, makeSqliteClient(busyWait === undefined ? { filename } : { filename, busyWait }))
    .pipe(
      Layer.provide(Reactivity.layer)
    )
