import type { SqlDialect } from "@svc/backend"
import { type RunningServer, startServer } from "@svc/server"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { type FreshDatabase, freshDatabase } from "./dialects.js"
import type { TestOptions, TestServer } from "./server.js"

/**
 * Several real servers, each with its own options (tenant, keys, snapshot settings), all on one
 * fresh database: how several instances share a database in production. Started in order, so
 * the first one migrates.
 */
export const useServersOnOneDatabase = (
  dialect: SqlDialect,
  all: ReadonlyArray<TestOptions>
): ReadonlyArray<TestServer> => {
  const running: Array<RunningServer> = []
  let db: FreshDatabase | undefined
  beforeAll(async () => {
    db = await freshDatabase(dialect)
    for (const options of all) {
      running.push(
        await startServer(
          { ...options, database: db.database, observability: { requests: "none", ...options.observability } },
          { port: 0, host: "127.0.0.1" }
        )
      )
    }
  })
  afterAll(async () => {
    for (const server of running) await server.close()
    await db?.drop()
  })
  return all.map((_, i) => {
    const url = () => running[i]!.url
    return {
      url,
      db: () => db!,
      client: Effect.dieMessage("use fetch on shared-database servers"),
      clientWithKey: () => Effect.dieMessage("use fetch on shared-database servers"),
      fetch: (path: string, init?: RequestInit) => fetch(url() + path, init)
    }
  })
}
