import { describe, expect, it } from "vitest"
import { bearer, call, cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "dbfail-key-0123456789abcdef"

describe.each(dialects)("database failures under a running server [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY] })

  it("answers 503 DATABASE_ERROR with a generic body and no SQL when a table disappears", async () => {
    const body = cookieSave()
    expect((await save(server, body)).status).toBe(200)
    await server.db().query("DROP TABLE svc_consents")
    const answers = [
      await call(server, "GET", `/subjects/${body.subjectId}`),
      await save(server, cookieSave()),
      await call(server, "GET", "/consents/check?externalId=u&type=cookie_banner", undefined, bearer(API_KEY))
    ]
    for (const answer of answers) {
      expect(answer.status).toBe(503)
      expect(answer.body).toEqual({ message: expect.any(String), cause: { code: "DATABASE_ERROR" } })
      const text = JSON.stringify(answer.body)
      expect(text).not.toMatch(/select|insert|svc_|table|relation|sqlite|syntax/i)
    }
  })
})
