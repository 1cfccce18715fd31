import { describe, expect, it } from "vitest"
import { bearer, call, cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "dbfail-key-0123456789abcdef-01234567"

describe.each(dialects)("database failures under a running server [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY] })

  // A table that is not there is a schema nobody migrated, not a transient failure: no 503 that
  // invites retries, but a 500 that tells the operator what to run (transient failures keep their
  // 503 DATABASE_ERROR, see save-atomicity.test.ts and sqlite-lock.test.ts).
  it("answers 500 INTERNAL_ERROR naming svc migrate, with no SQL, when a table disappears", async () => {
    const body = cookieSave()
    expect((await save(server, body)).status).toBe(200)
    await server.db().query("DROP TABLE svc_consents")
    const answers = [
      await call(server, "GET", `/subjects/${body.subjectId}`),
      await save(server, cookieSave()),
      await call(server, "GET", "/consents/check?externalId=u&type=cookie_banner", undefined, bearer(API_KEY))
    ]
    for (const answer of answers) {
      expect(answer.status).toBe(500)
      expect(answer.body).toEqual({
        message: "The database schema is missing or out of date; run `svc migrate`",
        cause: { code: "INTERNAL_ERROR" }
      })
      expect(answer.headers.get("retry-after")).toBeNull()
      const text = JSON.stringify(answer.body)
      expect(text).not.toMatch(/select|insert|svc_|table|relation|sqlite|syntax/i)
    }
  })
})
