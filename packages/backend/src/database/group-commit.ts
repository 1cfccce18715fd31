import { SqlClient, type SqlError } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { Context, Deferred, Effect, Exit, FiberRef, Scope } from "effect"

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
 *   one transaction each). If the commit fails, every member of the group fails with its error.
 * - If SQLite itself has aborted the transaction (a savepoint can no longer be rolled back to),
 *   the group is broken: the members not yet run fail without running, and the commit fails.
 * - Nested `withTransaction` calls inside a member use savepoints as `@effect/sql` does.
 */
export interface GroupCommitOptions {
  /** Holds the connection and begins the transaction; the scope's close lets the connection go. */
  readonly begin: Effect.Effect<readonly [Scope.CloseableScope, Connection], SqlError.SqlError>
}

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

const MEMBER = "svc_group_member"

/**
 * One turn of the event loop, so that requests already read from their sockets reach their
 * transactions and join the group before it begins.
 */
const nextTurn = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

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
      return nextTurn.pipe(
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

  /** The last member out commits the group and lets the connection go. */
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

  /** One member's work inside its savepoint; a failure rolls back this member alone. */
  const runMember = <A, E, R>(
    group: Group,
    connection: Connection,
    body: Effect.Effect<A, E, R>
  ): Effect.Effect<Exit.Exit<A, E | SqlError.SqlError>, never, R> =>
    group.turn.withPermits(1)(
      Effect.suspend(() => {
        if (group.broken !== undefined) return Effect.succeed(Exit.fail(group.broken))
        return run(connection, `SAVEPOINT ${MEMBER}`).pipe(
          Effect.zipRight(Effect.exit(body)),
          Effect.flatMap((exit) =>
            (Exit.isSuccess(exit)
              ? run(connection, `RELEASE ${MEMBER}`)
              : run(connection, `ROLLBACK TO ${MEMBER}`).pipe(Effect.zipRight(run(connection, `RELEASE ${MEMBER}`))))
              .pipe(
                Effect.as<Exit.Exit<A, E | SqlError.SqlError>>(exit)
              )
          ),
          Effect.catchAll((error) =>
            Effect.sync(() => {
              group.broken = error
              return Exit.fail(error)
            })
          )
        )
      })
    )

  /** A transaction at depth 0: joins a group, runs in turn, answers once the group committed. */
  const inGroup = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
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
        const exit = yield* runMember(group, connection, body)
        yield* leave(group, scope, connection)
        const committed = yield* Effect.exit(Deferred.await(group.committed))
        if (Exit.isFailure(committed) && Exit.isSuccess(exit)) return yield* Effect.failCause(committed.cause)
        return yield* exit
      })
    )

  /** A transaction inside a member: a savepoint, as `@effect/sql` nests them. */
  const nested = <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    connection: Connection,
    depth: number
  ): Effect.Effect<A, E | SqlError.SqlError, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const id = depth + 1
        yield* run(connection, `SAVEPOINT effect_sql_${id}`)
        const context = yield* FiberRef.get(FiberRef.currentContext)
        const exit = yield* Effect.exit(Effect.locally(
          restore(effect),
          FiberRef.currentContext,
          Context.add(context, SqlClient.TransactionConnection, [connection, id] as const)
        ))
        if (Exit.isFailure(exit)) yield* Effect.orDie(run(connection, `ROLLBACK TO SAVEPOINT effect_sql_${id}`))
        return yield* exit
      })
    )

  /** `SqlClient.withTransaction` with group commit. */
  const withTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
    Effect.flatMap(
      Effect.serviceOption(SqlClient.TransactionConnection),
      (current) => current._tag === "Some" ? nested(effect, current.value[0], current.value[1]) : inGroup(effect)
    )

  return { withTransaction }
}
