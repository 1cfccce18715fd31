import type { SqlDialect } from "@svc/backend"
import { type RunningServer, startServer } from "@svc/server"
import mysql from "mysql2/promise"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { problemsOf } from "./support/config-problems.js"
import { type FreshDatabase, freshDatabase, serverDialects } from "./support/dialects.js"
import { postCookieSave } from "./support/consent-saves.js"

/*
 * `database.maxConnections`: the most connections svc's pool holds. Checked where it shows, in the
 * database's own list of sessions: with every save blocked on a table lock held by the test, the
 * pool grows to the size given and no further, the other saves wait for a connection, and all of
 * them land once the lock goes.
 */

const POOL = 3
const SAVES = 8

describe("database.maxConnections: configuration", () => {
  it("SQLite refuses it: one connection, shared by group commit", () => {
    expect(problemsOf({ database: { dialect: "sqlite", url: ":memory:", maxConnections: 4 } })).toEqual([
      "database.maxConnections: SQLite has one connection, shared by group commit; remove maxConnections (or use postgres or mysql)"
    ])
  })

  it("must be a positive integer, said without quoting the database block", () => {
    for (const maxConnections of [0, -1, 2.5, "10", null]) {
      expect(problemsOf({ database: { dialect: "postgres", url: "postgres://svc:s3cret@db/svc", maxConnections } }))
        .toEqual(["database.maxConnections: must be a positive integer"])
    }
  })

  it("belongs beside url; a layer's pool is sized where the layer is made", async () => {
    const { Layer } = await import("effect")
    expect(problemsOf({ database: { layer: Layer.empty, maxConnections: 4 } })).toEqual([
      "database.maxConnections: only beside url; a layer's pool is sized where the layer is made"
    ])
  })
})

/** The sessions svc has open on the fresh database, counted from a connection of the test's own. */
const sessionCounter = (dialect: SqlDialect, db: FreshDatabase, applicationName: string) => async () => {
  if (dialect === "postgres") {
    const client = new pg.Client({ connectionString: db.database.url })
    await client.connect()
    try {
      const { rows } = await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1",
        [applicationName]
      )
      return Number(rows[0]!.n)
    } finally {
      await client.end()
    }
  }
  const connection = await mysql.createConnection(db.database.url)
  try {
    // Every session on the test's database but this one and the test's own (which holds the lock).
    const [rows] = await connection.query(
      "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND ID <> CONNECTION_ID()"
    )
    return Number((rows as Array<{ n: number }>)[0]!.n) - 1
  } finally {
    await connection.end()
  }
}

/** Holds a lock every save's insert waits for, until the returned function lets it go. */
const blockSaves = async (dialect: SqlDialect, db: FreshDatabase) => {
  if (dialect === "postgres") {
    await db.query("BEGIN")
    await db.query("LOCK TABLE svc_consents IN EXCLUSIVE MODE")
    return () => db.query("COMMIT")
  }
  await db.query("LOCK TABLES svc_consents WRITE")
  return () => db.query("UNLOCK TABLES")
}

const until = async (check: () => Promise<boolean>, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached in time")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe.each(serverDialects)("database.maxConnections sizes the pool [%s]", (dialect) => {
  let db: FreshDatabase
  let running: RunningServer
  const applicationName = `svc_pool_${Date.now().toString(36)}`

  beforeAll(async () => {
    db = await freshDatabase(dialect)
    const url = new URL(db.database.url)
    if (dialect === "postgres") url.searchParams.set("application_name", applicationName)
    running = await startServer({
      database: { ...db.database, url: url.toString(), maxConnections: POOL },
      observability: { requests: "none" }
    }, { port: 0, host: "127.0.0.1" })
  })
  afterAll(async () => {
    await running?.close()
    await db?.drop()
  })

  it(`${SAVES} saves blocked in the database hold ${POOL} connections, no more, and all land after`, async () => {
    const sessions = sessionCounter(dialect, db, applicationName)
    const release = await blockSaves(dialect, db)
    let saves: Promise<ReadonlyArray<{ readonly status: number }>> | undefined
    try {
      saves = Promise.all(Array.from({ length: SAVES }, () => postCookieSave(running.url)))
      await until(async () => (await sessions()) >= POOL)
      // The pool is full and more saves wait: still no connection beyond the size given.
      await new Promise((resolve) => setTimeout(resolve, 500))
      expect(await sessions()).toBe(POOL)
    } finally {
      await release()
    }
    const answers = await saves!
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: SAVES }, () => 200))
    expect(Number((await db.query("SELECT COUNT(*) AS n FROM svc_consents"))[0]!.n)).toBe(SAVES)
  })
})
