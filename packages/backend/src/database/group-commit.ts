import { SqlClient, type SqlError } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { Cause, Context, Deferred, Effect, Exit, FiberRef, Scope } from "effect"
import { eventLoopTurn } from "./event-loop.js"

/**
 * Group commit for a database with one connection (SQLite): transactions that arrive while the
 * connection is busy are gathered into one group that shares a single `BEGIN IMMEDIATE` and a
 * single `COMMIT`, so a group of N saves pays one WAL fsync instead of N.
 *
 * - The first transaction to arrive forms a group and acquires the connection. Transactions that
 *   arrive before the connection is won join that group; once it is won, the group is sealed and
 *   later arrivals form the next group, which waits for this one to commit. So no transaction waits
 *   longer than the group ahead of it and its own group; an idle server commits each one at once.
 * - Members run one at a time, each inside its own savepoint: a member that fails is rolled back
 *   alone, and the others are unaffected, exactly as if each had its own transaction.
 * - A member is answered only after its group's `COMMIT` has succeeded (durability is the same as
 *   one transaction each). If the commit fails, every member of the group fails (a defect, as a
 *   failed `COMMIT` is in `@effect/sql`).
 * - If SQLite itself has aborted the transaction (a member's savepoint can no longer be released
 *   or rolled back to), the group is broken: the members not yet run fail without running, and
 *   the group is rolled back.
 *
 * How it plugs in: `transaction` is the SQLite client's `withTransaction` for a transaction that is
 * not inside another (sqlite-client.ts wraps the client `@effect/sql` builds, see
 * docs/adr/0097-group-commit-as-the-sqlite-clients-own-transactions.md). A member runs with the
 * group's connection as `@effect/sql`'s `TransactionConnection`, so its statements go there and its
 * nested transactions are `@effect/sql`'s own savepoints.
 */
export interface GroupCommitOptions {
  /** Holds the connection and begins the transaction; the scope's close lets the connection go. */
  readonly begin: Effect.Effect<readonly [Scope.CloseableScope, Connection], SqlError.SqlError>
}

/** A member's own savepoint. */
const MEMBER_BEGIN = "SAVEPOINT svc_group_member"
const MEMBER_RELEASE = "RELEASE svc_group_member"
const MEMBER_ROLLBACK = "ROLLBACK TO svc_group_member"

interface Group {
  /** The connection, once `BEGIN` ran (or why it could not). */
  readonly ready: Deferred.Deferred<readonly [Scope.CloseableScope, Connection], SqlError.SqlError>
  /** Completed once the group has committed (or failed to). */
  readonly committed: Deferred.Deferred<void, SqlError.SqlError>
  /** Lets one member at a time use the connection. */
  readonly turn: Effect.Semaphore
  /** Members joined and not yet finished. */
  pending: number
  /** Set when SQLite aborted the transaction under a member: nothing more may run in it. */
  broken: SqlError.SqlError | undefined
}

/** A fixed statement, prepared once and kept in the driver's statement cache. */
const run = (connection: Connection, statement: string) => connection.execute(statement, [], undefined)

export const makeGroupCommit = (options: GroupCommitOptions) => {
  /** The group gathering members while it waits for the connection. */
  let forming: Group | undefined

  const newGroup = Effect.gen(function*() {
    const group: Group = {
      ready: yield* Deferred.make<readonly [Scope.CloseableScope, Connection], SqlError.SqlError>(),
      committed: yield* Deferred.make<void, SqlError.SqlError>(),
      turn: yield* Effect.makeSemaphore(1),
      pending: 0,
      broken: undefined
    }
    return group
  })

  /** Joins the forming group, or forms one and wins it the connection (the caller is its leader). */
  const join = Effect.suspend(() => {
    if (forming !== undefined) {
      forming.pending++
      return Effect.succeed(forming)
    }
    return Effect.flatMap(newGroup, (group) => {
      group.pending = 1
      forming = group
      // One turn of the event loop first, so that requests already read from their sockets reach
      // their transactions and join the group before it begins.
      return eventLoopTurn.pipe(
        Effect.zipRight(options.begin),
        Effect.ensuring(Effect.sync(() => {
          if (forming === group) forming = undefined
        })),
        Effect.exit,
        Effect.flatMap((exit) => Deferred.done(group.ready, exit)),
        Effect.as(group)
      )
    })
  })

  /** The last member out commits the group (or rolls a broken one back) and lets the connection go. */
  const leave = (group: Group, scope: Scope.CloseableScope, connection: Connection) =>
    Effect.suspend(() => {
      group.pending--
      if (group.pending > 0) return Effect.void
      const commit = group.broken === undefined ? run(connection, "COMMIT") : Effect.fail(group.broken)
      return commit.pipe(
        Effect.tapError(() => Effect.ignore(run(connection, "ROLLBACK"))),
        Effect.exit,
        Effect.tap((exit) => Scope.close(scope, exit)),
        Effect.flatMap((exit) => Deferred.done(group.committed, Exit.asVoid(exit)))
      )
    })

  /** A savepoint statement of the member; one that fails breaks the group (SQLite aborted the transaction). */
  const savepoint = (group: Group, connection: Connection, statement: string) =>
    Effect.tapError(run(connection, statement), (error) => Effect.sync(() => void (group.broken ??= error)))

  /**
   * The member's own work in its savepoint, on its turn: released when it succeeds, rolled back to
   * and released when it fails. As in `@effect/sql`, a savepoint that cannot be ended is a defect.
   */
  const inSavepoint = <A, E, R>(
    group: Group,
    connection: Connection,
    body: Effect.Effect<A, E, R>
  ): Effect.Effect<Exit.Exit<A, E | SqlError.SqlError>, never, R> =>
    Effect.gen(function*() {
      if (group.broken !== undefined) return Exit.fail(group.broken)
      const begun = yield* Effect.exit(savepoint(group, connection, MEMBER_BEGIN))
      if (Exit.isFailure(begun)) return Exit.failCause(begun.cause)
      const exit = yield* Effect.exit(body)
      const end = Exit.isSuccess(exit)
        ? savepoint(group, connection, MEMBER_RELEASE)
        : Effect.zipRight(savepoint(group, connection, MEMBER_ROLLBACK), savepoint(group, connection, MEMBER_RELEASE))
      const ended = yield* Effect.exit(Effect.orDie(end))
      return Exit.isFailure(ended) ? Exit.failCause(ended.cause) : exit
    })

  /**
   * `withTransaction` for a transaction not inside another: joins a group, runs `effect` in its own
   * savepoint on its turn (with the group's connection as its `TransactionConnection`), and answers
   * once the group has committed; a member that succeeded fails (a defect) if that commit did.
   */
  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const group = yield* join
        const ready = yield* Effect.exit(Deferred.await(group.ready))
        if (Exit.isFailure(ready)) {
          group.pending--
          return yield* Effect.failCause(ready.cause)
        }
        const [scope, connection] = ready.value
        const context = yield* FiberRef.get(FiberRef.currentContext)
        const body = Effect.locally(
          restore(effect),
          FiberRef.currentContext,
          Context.add(context, SqlClient.TransactionConnection, [connection, 0] as const)
        )
        const exit = yield* group.turn.withPermits(1)(inSavepoint(group, connection, body))
        yield* leave(group, scope, connection)
        const committed = yield* Effect.exit(Deferred.await(group.committed))
        if (Exit.isSuccess(exit) && Exit.isFailure(committed)) return yield* Effect.die(Cause.squash(committed.cause))
        return yield* exit
      })
    )

  return { transaction } as const
}
