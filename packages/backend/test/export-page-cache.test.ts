import { SqlClient } from "@effect/sql"
import { Effect, Exit, Layer, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { ReadSqlClient } from "../src/database/read-client.js"
import { sqliteClientLayer } from "../src/database/sqlite-client.js"
import { PeriodRecordsRepo } from "../src/records/period-repository.js"

/**
 * A period export reads each page of its period once: on SQLite it holds the connection's page
 * cache at SQLite's own default (2,000 KiB) while it reads, instead of better-sqlite3's 16 MB, and
 * gives the connection its size back when the last export ends. (Through HTTP the exports run
 * on every dialect in consent-export.test.ts; the cache is SQLite's connection's alone.)
 */
describe("period export: SQLite's page cache", () => {
  it("is 2 MB while any export reads and the connection's own size again after the last one", async () => {
    const program = Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const repo = yield* PeriodRecordsRepo
      const cacheSize = Effect.map(sql<{ cache_size: number }>`PRAGMA cache_size`, ([row]) => row!.cache_size)
      const before = yield* cacheSize
      const first = yield* Scope.make()
      yield* Scope.extend(repo.pageCacheHeldSmall, first)
      const reading = yield* cacheSize
      const second = yield* Scope.make()
      yield* Scope.extend(repo.pageCacheHeldSmall, second)
      yield* Scope.close(first, Exit.void)
      const secondStillReading = yield* cacheSize
      yield* Scope.close(second, Exit.void)
      return { before, reading, secondStillReading, after: yield* cacheSize }
    })
    // Without a read URL the export reads through the primary's own SqlClient.
    const layer = PeriodRecordsRepo.Default.pipe(
      Layer.provide(Layer.effect(ReadSqlClient, SqlClient.SqlClient)),
      Layer.provideMerge(Layer.orDie(sqliteClientLayer(":memory:")))
    )
    expect(await Effect.runPromise(Effect.provide(program, layer))).toEqual({
      before: -16000,
      reading: -2000,
      secondStillReading: -2000,
      after: -16000
    })
  })
})
