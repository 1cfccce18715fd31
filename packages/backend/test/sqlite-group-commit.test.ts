import { SqlClient } from "@effect/sql"
import { Effect, Exit, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { sqliteClientLayer } from "../src/database/sqlite-client.js"

/**
 * SQLite group commit, seen from the database file: concurrent transactions share one commit
 * (one WAL fsync) and still succeed or fail each on its own.
 */
const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const withDatabase = <A, E>(use: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) => {
  const dir = mkdtempSync(join(tmpdir(), "svc-group-commit-"))
  dirs.push(dir)
  const program = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`PRAGMA journal_mode = WAL`
    yield* sql`PRAGMA wal_autocheckpoint = 0` // the WAL keeps every frame, so commits can be counted
    yield* sql`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`
    return yield* use(sql)
  })
  return Effect.runPromise(Effect.provide(program, Layer.orDie(sqliteClientLayer(join(dir, "db.sqlite")))))
}

/** Frames in the write-ahead log: each commit appends the pages it changed. */
const walFrames = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ log: number }>`PRAGMA wal_checkpoint(PASSIVE)`, (rows) => Number(rows[0]!.log))

const insert = (sql: SqlClient.SqlClient, id: number) =>
  sql.withTransaction(
    Effect.zipRight(sql`INSERT INTO t (id, v) VALUES (${id}, 'a')`, sql`UPDATE t SET v = 'b' WHERE id = ${id}`)
  )

describe("SQLite group commit", () => {
  it("concurrent transactions share commits: far fewer WAL commits than transactions", async () => {
    const { frames, one } = await withDatabase((sql) =>
      Effect.gen(function*() {
        yield* sql`PRAGMA wal_checkpoint(TRUNCATE)`
        yield* insert(sql, 0)
        const one = yield* walFrames(sql) // what a single transaction appends
        yield* Effect.all(Array.from({ length: 40 }, (_, i) => insert(sql, i + 1)), { concurrency: "unbounded" })
        return { frames: (yield* walFrames(sql)) - one, one }
      })
    )
    expect(one).toBeGreaterThan(0)
    // One commit each would append at least 40 × `one` frames.
    expect(frames).toBeLessThan(40 * one / 4)
  })

  it("a failing member is rolled back alone; the others of its group commit", async () => {
    const { exits, rows } = await withDatabase((sql) =>
      Effect.gen(function*() {
        const work = Array.from({ length: 12 }, (_, i) =>
          i % 4 === 0
            // writes, then fails: its writes must vanish, the group's others must not
            ? sql.withTransaction(
              Effect.zipRight(sql`INSERT INTO t (id, v) VALUES (${i}, 'doomed')`, Effect.fail(`refused ${i}`))
            )
            : i % 4 === 1
            // a statement the database refuses (duplicate key after its own insert)
            ? sql.withTransaction(
              Effect.zipRight(
                sql`INSERT INTO t (id, v) VALUES (${i}, 'x')`,
                sql`INSERT INTO t (id, v) VALUES (${i}, 'y')`
              )
            )
            : insert(sql, i))
        const exits = yield* Effect.all(work.map(Effect.exit), { concurrency: "unbounded" })
        const rows = yield* sql<{ id: number; v: string }>`SELECT id, v FROM t ORDER BY id`
        return { exits, rows }
      })
    )
    exits.forEach((exit, i) => expect(Exit.isSuccess(exit), `transaction ${i}`).toBe(i % 4 >= 2))
    expect(rows.map((r) => r.id)).toEqual([2, 3, 6, 7, 10, 11])
    expect(rows.every((r) => r.v === "b")).toBe(true)
  })

  it("the client's copies (`safe`, `withoutTransforms()`) commit in groups too", async () => {
    const { frames, one } = await withDatabase((sql) =>
      Effect.gen(function*() {
        yield* sql`PRAGMA wal_checkpoint(TRUNCATE)`
        yield* insert(sql, 0)
        const one = yield* walFrames(sql)
        const copies = [sql.safe, sql.withoutTransforms()]
        yield* Effect.all(Array.from({ length: 40 }, (_, i) => insert(copies[i % 2]!, i + 1)), {
          concurrency: "unbounded"
        })
        return { frames: (yield* walFrames(sql)) - one, one }
      })
    )
    expect(frames).toBeLessThan(40 * one / 4)
  })

  it("a nested transaction inside a member rolls back to its savepoint", async () => {
    const rows = await withDatabase((sql) =>
      Effect.gen(function*() {
        yield* Effect.all([
          sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO t (id, v) VALUES (1, 'outer')`
            yield* Effect.exit(
              sql.withTransaction(Effect.zipRight(sql`INSERT INTO t (id, v) VALUES (2, 'inner')`, Effect.fail("no")))
            )
          })),
          insert(sql, 3)
        ], { concurrency: "unbounded" })
        return yield* sql<{ id: number }>`SELECT id FROM t ORDER BY id`
      })
    )
    expect(rows.map((r) => r.id)).toEqual([1, 3])
  })

  it("a member that ends the group's transaction under it breaks the group: every member fails, nothing commits", async () => {
    const { exits, rows } = await withDatabase((sql) =>
      Effect.gen(function*() {
        const work = Array.from({ length: 6 }, (_, i) =>
          i === 2
            // as when SQLite aborts a transaction itself: the members' savepoints are gone
            ? sql.withTransaction(Effect.zipRight(sql`INSERT INTO t (id, v) VALUES (${i}, 'x')`, sql`ROLLBACK`))
            : insert(sql, i))
        const exits = yield* Effect.all(work.map(Effect.exit), { concurrency: "unbounded" })
        const rows = yield* sql<{ id: number }>`SELECT id FROM t ORDER BY id`
        return { exits, rows }
      })
    )
    exits.forEach((exit, i) => expect(Exit.isFailure(exit), `transaction ${i}`).toBe(true))
    expect(rows).toEqual([])
  })
})
