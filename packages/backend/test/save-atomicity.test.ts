import type { SqlDialect } from "@svc/backend"
import { describe, expect, it } from "vitest"
import { bearer, consentRows, cookieSave, save, subjectRow } from "./support/consent-saves.js"
import { dialects, type FreshDatabase } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "atomic-key-0123456789abcdef-01234567"
const FAILING_DOMAIN = "fail.example"

/**
 * A real failure between a save's two statements: the database refuses the consent insert (a
 * trigger) after the subject insert has run. Installing it twice is harmless.
 */
const failConsentInserts = async (db: FreshDatabase, dialect: SqlDialect) => {
  switch (dialect) {
    case "sqlite":
      return void await db.query(`CREATE TRIGGER IF NOT EXISTS svc_t_fail BEFORE INSERT ON svc_consents
        WHEN NEW.domain = '${FAILING_DOMAIN}' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`)
    case "postgres":
      await db.query(`CREATE OR REPLACE FUNCTION svc_t_fail() RETURNS trigger AS $$
        BEGIN IF NEW.domain = '${FAILING_DOMAIN}' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$
        LANGUAGE plpgsql`)
      return void await db.query(
        "CREATE OR REPLACE TRIGGER svc_t_fail BEFORE INSERT ON svc_consents FOR EACH ROW EXECUTE FUNCTION svc_t_fail()"
      )
    case "mysql":
      await db.query("DROP TRIGGER IF EXISTS svc_t_fail")
      return void await db.query(`CREATE TRIGGER svc_t_fail BEFORE INSERT ON svc_consents FOR EACH ROW
        BEGIN IF NEW.domain = '${FAILING_DOMAIN}' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; END IF; END`)
  }
}

describe.each(dialects)("a save is one transaction [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY] })

  it("a failure after the subject is written leaves neither the subject nor its link nor the act", async () => {
    await failConsentInserts(server.db(), dialect)
    const plain = cookieSave({ domain: FAILING_DOMAIN })
    const linked = cookieSave({ domain: FAILING_DOMAIN, externalSubjectId: "atomic-user" })
    const answers = [await save(server, plain), await save(server, linked, bearer(API_KEY))]
    for (const answer of answers) {
      expect(answer.status).toBe(503)
      expect(answer.body).toEqual({ message: expect.any(String), cause: { code: "DATABASE_ERROR" } })
    }
    for (const body of [plain, linked]) {
      expect(await subjectRow(server, body.subjectId as string)).toBeUndefined()
      expect(await consentRows(server, body.subjectId as string)).toEqual([])
    }
    expect(await server.db().query("SELECT id FROM svc_subjects WHERE external_id = ?", ["atomic-user"])).toEqual([])

    // The same subject saves cleanly once the database accepts the act: subject and act together.
    const retried = await save(server, { ...linked, domain: "example.com" }, bearer(API_KEY))
    expect(retried.status).toBe(200)
    expect((await subjectRow(server, linked.subjectId as string))?.external_id).toBe("atomic-user")
    expect(await consentRows(server, linked.subjectId as string)).toHaveLength(1)
  })

  it("among concurrent saves, each failing one leaves nothing and every other one lands", async () => {
    await failConsentInserts(server.db(), dialect)
    // Concurrent saves (on SQLite they share a group commit), every third one refused by the database.
    const bodies = Array.from({ length: 24 }, (_, i) => cookieSave(i % 3 === 0 ? { domain: FAILING_DOMAIN } : {}))
    const answers = await Promise.all(bodies.map((body) => save(server, body)))
    bodies.forEach((body, i) => {
      const failing = body.domain === FAILING_DOMAIN
      expect(answers[i]!.status, `save ${i}`).toBe(failing ? 503 : 200)
      if (!failing) expect(answers[i]!.body.subjectId).toBe(body.subjectId)
    })
    for (const body of bodies) {
      const landed = body.domain !== FAILING_DOMAIN
      expect((await subjectRow(server, body.subjectId as string)) !== undefined, `subject ${body.subjectId}`).toBe(
        landed
      )
      expect(await consentRows(server, body.subjectId as string)).toHaveLength(landed ? 1 : 0)
    }
  })
})
