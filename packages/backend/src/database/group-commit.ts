import type { SqlError } from "@effect/sql"
import type { Connection } from "@effect/sql/SqlConnection"
import { Deferred, Effect, Exit, Scope } from "effect"
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
 * How it plugs in: `SqlClient.make` of `@effect/sql` takes `member` as its `transactionAcquirer`
 * and `statements` as its BEGIN, COMMIT and ROLLBACK (sqlite-client.ts). To `@effect/sql` each
 * member is then an ordinary transaction on a connection of its own; its nested transactions are
 * `@effect/sql`'s own savepoints. The SQL client is built, never patched.
 */
export interface GroupCommitOptions {
  /** Holds the connection and begins the transaction; the scope's close lets the connection go. */
  readonly begin: Effect.Effect<readonly [Scope.CloseableScope, Connection], SqlError.SqlError>
}

/** A member's own savepoint: what `@effect/sql` runs as the member's BEGIN, COMMIT and ROLLBACK. */
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

/** One member's savepoint: open between its BEGIN and its RELEASE (a ROLLBACK TO leaves it open). */
interface Member {
  open: boolean
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

  /**
   * The connection as one member sees it: every statement goes to the group's connection; the
   * member's own savepoint statements also keep `member` up to date, and one that fails breaks
   * the group (SQLite aborted the transaction).
   */
  const memberConnection = (group: Group, connection: Connection, member: Member): Connection => ({
    execute: (sql, params, transformRows) => connection.execute(sql, params, transformRows),
    executeRaw: (sql, params) => connection.executeRaw(sql, params),
    executeValues: (sql, params) => connection.executeValues(sql, params),
    executeStream: (sql, params, transformRows) => connection.executeStream(sql, params, transformRows),
    executeUnprepared: (sql, params, transformRows) => {
      if (sql !== MEMBER_BEGIN && sql !== MEMBER_RELEASE && sql !== MEMBER_ROLLBACK)
        return connection.executeUnprepared(sql, params, transformRows)
      return run(connection, sql).pipe(
        Effect.tap(() => {
          if (sql !== MEMBER_ROLLBACK) member.open = sql === MEMBER_BEGIN
        }),
        Effect.tapError((error) =>
          Effect.sync(() => {
            member.open = false
            group.broken ??= error
          })
        )
      )
    }
  })

  /**
   * After a member's transaction: a rolled-back savepoint is released (so the next member starts
   * on a clean stack), the turn passes on, and the member waits for its group's commit; a member
   * that succeeded fails if that commit did.
   */
  const finish = (
    group: Group,
    scope: Scope.CloseableScope,
    connection: Connection,
    member: Member,
    exit: Exit.Exit<unknown, unknown>
  ) =>
    Effect.gen(function*() {
      if (member.open) {
        yield* run(connection, MEMBER_RELEASE).pipe(
          Effect.catchAll((error) => Effect.sync(() => void (group.broken ??= error)))
        )
      }
      yield* group.turn.release(1)
      yield* leave(group, scope, connection)
      const committed = yield* Effect.exit(Deferred.await(group.committed))
      if (Exit.isSuccess(exit) && Exit.isFailure(committed)) return yield* Effect.orDie(committed)
    })

  /**
   * A member's connection for one transaction (scoped): joins a group, waits for its turn, and
   * fails without running when the group is broken. It cleans up itself when it fails: the caller
   * (`SqlClient.make`) does not close the scope of a connection it could not acquire.
   */
  const member: Effect.Effect<Connection, SqlError.SqlError, Scope.Scope> = Effect.uninterruptible(
    Effect.gen(function*() {
      const group = yield* join
      const ready = yield* Effect.exit(Deferred.await(group.ready))
      if (Exit.isFailure(ready)) {
        group.pending--
        return yield* Effect.failCause(ready.cause)
      }
      const [scope, connection] = ready.value
      yield* group.turn.take(1)
      if (group.broken !== undefined) {
        const broken = group.broken
        yield* group.turn.release(1)
        yield* leave(group, scope, connection)
        return yield* Effect.fail(broken)
      }
      const state: Member = { open: false }
      // Registered on the scope itself: `Effect.addFinalizer` would also restore the fiber's refs as
      // they were here when the finalizer runs, two diffs and patches of the whole request context
      // per transaction, which `finish` does not need.
      const memberScope = yield* Effect.scope
      yield* Scope.addFinalizerExit(memberScope, (exit) => finish(group, scope, connection, state, exit))
      return memberConnection(group, connection, state)
    })
  )

  return {
    member,
    /** The member's savepoint statements, as `SqlClient.make` takes them. */
    statements: { beginTransaction: MEMBER_BEGIN, commit: MEMBER_RELEASE, rollback: MEMBER_ROLLBACK }
  } as const
}
