import { migrations } from "@svc/backend"
import { afterEach, describe, expect, it, vi } from "vitest"
import { cookieSave, newSubjectId } from "../../backend/test/support/consent-saves.js"
import { dialects, type FreshDatabase, freshDatabase } from "../../backend/test/support/dialects.js"
import { type RunningServer, startServer } from "../src/index.js"

/** Every line written through `console` until `restore`. */
const captureConsole = () => {
  const lines: Array<string> = []
  const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
      lines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "))
    })
  )
  return { text: () => lines.join("\n"), restore: () => spies.forEach((spy) => spy.mockRestore()) }
}

let running: RunningServer | undefined
let db: FreshDatabase | undefined

afterEach(async () => {
  await running?.close()
  await db?.drop()
  running = undefined
  db = undefined
})

/** Starts without migrating (as `svcInstance` composed into a host app does) and returns the startup log. */
const startUnmigrated = async (database: FreshDatabase["database"]) => {
  const logs = captureConsole()
  try {
    running = await startServer({ database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1",
      migrate: false
    })
  } finally {
    logs.restore()
  }
  return logs.text()
}

const json = async (path: string, init?: RequestInit) => {
  const response = await fetch(`${running!.url}${path}`, init)
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.json() }
}

describe.each(dialects)("a database nobody migrated [%s]", (dialect) => {
  it("is reported at startup, and what needs it answers a non-retryable 500 naming svc migrate", async () => {
    db = await freshDatabase(dialect)
    const log = await startUnmigrated(db.database)
    expect(log).toMatch(/The database schema is not migrated.*run `svc migrate`/)

    const answers = [
      await json(`/subjects/${newSubjectId()}`),
      await json("/subjects", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(cookieSave())
      })
    ]
    for (const answer of answers) {
      expect(answer.status).toBe(500)
      expect(answer.body).toEqual({
        message: "The database schema is missing or out of date; run `svc migrate`",
        cause: { code: "INTERNAL_ERROR" }
      })
      expect(answer.retryAfter).toBeNull()
    }
  })

  it("says how far behind a partly migrated schema is", async () => {
    db = await freshDatabase(dialect)
    await (await startServer({ database: db.database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1"
    })).close()
    const [lastId, lastName] = migrations[migrations.length - 1]!
    await db.query(`DELETE FROM svc_migrations WHERE migration_id = ${lastId}`)
    const log = await startUnmigrated(db.database)
    expect(log).toMatch(
      new RegExp(`The database schema is 1 migration\\(s\\) behind \\(${lastId}-${lastName}\\).*svc migrate`)
    )
  })

  it("says nothing when the schema is current", async () => {
    db = await freshDatabase(dialect)
    await (await startServer({ database: db.database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1"
    })).close()
    const log = await startUnmigrated(db.database)
    expect(log).not.toContain("svc migrate")
    expect((await json(`/subjects/${newSubjectId()}`)).status).toBe(404)
  })
})
