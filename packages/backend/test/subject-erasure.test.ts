import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { bearer, call, cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import type { TestServer } from "./support/server.js"
import { useServer } from "./support/server.js"

const API_KEY = "erasure-key-0123456789abcdef-0123456"

/** Every row of every table of the test database, as one JSON text per table. */
const dumpEveryTable = async (server: TestServer): Promise<Record<string, string>> => {
  const db = server.db()
  const listing = db.database.dialect === "sqlite"
    ? "SELECT name FROM sqlite_master WHERE type = 'table'"
    : db.database.dialect === "postgres"
    ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()"
    : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()"
  const tables = (await db.query(listing)).map((row) => String(row.name ?? row.NAME))
  expect(tables).toEqual(expect.arrayContaining(["svc_subjects", "svc_consents", "svc_legal_documents", "svc_secrets"]))
  const dump: Record<string, string> = {}
  for (const table of tables) dump[table] = JSON.stringify(await db.query(`SELECT * FROM ${table}`))
  return dump
}

describe.each(dialects)("DELETE /subjects/:id and /subjects?externalId= [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY] })
  const erase = (path: string, headers = bearer(API_KEY)) => call(server, "DELETE", path, undefined, headers)

  it("removes every trace of personal data, keeps the records as anonymous proof, and lets the id start afresh", async () => {
    const subjectId = newSubjectId()
    const externalId = `erase-user-${randomBytes(6).toString("hex")}`
    const userAgent = `EraseMeBrowser/${randomBytes(6).toString("hex")}`
    const headers = { ...bearer(API_KEY), "user-agent": userAgent, "x-forwarded-for": "198.51.100.23" }
    const first = Date.now() - 60_000
    expect(
      (await save(
        server,
        cookieSave({ subjectId, givenAt: first, externalSubjectId: externalId, journey: { id: "jr-erase" } }),
        headers
      )).status
    ).toBe(200)
    expect((await save(server, cookieSave({ subjectId, givenAt: first + 1000 }), headers)).status).toBe(200)
    const before = JSON.stringify(
      await server.db().query("SELECT * FROM svc_consents WHERE subject_id = ?", [subjectId])
    )
    const storedIp = JSON.parse(before)[0].ip_address as string
    expect(storedIp).toMatch(/^198\.51\.100\./)
    expect(before).toContain(userAgent)

    const answer = await erase(`/subjects/${subjectId}`)
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({ erasedAt: expect.any(String), subjects: 1, recordsKeptAsAnonymousProof: 2 })

    const dump = await dumpEveryTable(server)
    for (const [table, text] of Object.entries(dump)) {
      for (const secret of [subjectId, externalId, userAgent, storedIp, "jr-erase"]) {
        expect(text.includes(secret), `${table} still holds ${secret}`).toBe(false)
      }
    }
    const kept = await server.db().query(
      "SELECT subject_id, erased_at, ip_address, user_agent FROM svc_consents WHERE subject_id LIKE 'erased_%'"
    )
    expect(kept.length).toBeGreaterThanOrEqual(2)

    expect((await call(server, "GET", `/subjects/${subjectId}`)).status).toBe(404)
    expect((await call(server, "GET", `/subjects?externalId=${externalId}`, undefined, bearer(API_KEY))).body).toEqual({
      subjects: []
    })
    expect(
      (await call(
        server,
        "GET",
        `/consents/check?externalId=${externalId}&type=cookie_banner`,
        undefined,
        bearer(API_KEY)
      )).body
    )
      .toEqual({ results: { cookie_banner: { hasConsent: false, isLatestPolicy: false } } })

    // shown the id, the operator can prove the erasure: the proof answers under the keyed hash
    const proof = await call(server, "GET", `/subjects/${subjectId}/export`, undefined, bearer(API_KEY))
    expect(proof.status).toBe(200)
    const [entry] = proof.body.subjects
    expect(entry.subjectId).toMatch(/^erased_[A-Za-z0-9_-]{43}$/)
    expect(entry.identityLinks).toEqual([])
    expect(entry.records).toHaveLength(2)
    for (const record of entry.records) {
      expect(record.events.at(-1)).toEqual({ type: "erased", time: answer.body.erasedAt })
      expect(record.proof).toEqual({ ipAddress: null, userAgent: null })
    }

    // the same id, even the same act, starts a fresh subject
    expect((await save(server, cookieSave({ subjectId, givenAt: first }))).status).toBe(200)
    const fresh = await call(server, "GET", `/subjects/${subjectId}`)
    expect(fresh.status).toBe(200)
    expect(fresh.body.consents).toHaveLength(1)
    expect(fresh.body.subject.externalId).toBeNull()
  })

  it("is idempotent: erasing again, or an unknown subject, answers zero counts", async () => {
    const subjectId = newSubjectId()
    await save(server, cookieSave({ subjectId }))
    expect((await erase(`/subjects/${subjectId}`)).body).toMatchObject({ subjects: 1, recordsKeptAsAnonymousProof: 1 })
    for (const path of [`/subjects/${subjectId}`, `/subjects/${newSubjectId()}`,
      "/subjects?externalId=nobody-at-all"])
    {
      const again = await erase(path)
      expect(again.status, path).toBe(200)
      expect(again.body).toEqual({ erasedAt: expect.any(String), subjects: 0, recordsKeptAsAnonymousProof: 0 })
    }
  })

  it("erases every subject verifiably linked to an external id, and only unlinks unverified claims", async () => {
    const externalId = `erase-many-${randomBytes(6).toString("hex")}`
    const [a, b, claim] = [newSubjectId(), newSubjectId(), newSubjectId()]
    await save(server, cookieSave({ subjectId: a, externalSubjectId: externalId }), bearer(API_KEY))
    await save(server, cookieSave({ subjectId: b, externalSubjectId: externalId }), bearer(API_KEY))
    await save(server, cookieSave({ subjectId: b, givenAt: Date.now() + 5 }), bearer(API_KEY))
    await save(server, cookieSave({ subjectId: claim, externalSubjectId: externalId }))
    const answer = await erase(`/subjects?externalId=${externalId}`)
    expect(answer.body).toMatchObject({ subjects: 2, recordsKeptAsAnonymousProof: 3 })
    expect((await call(server, "GET", `/subjects/${a}`)).status).toBe(404)
    expect((await call(server, "GET", `/subjects/${b}`)).status).toBe(404)
    const kept = await call(server, "GET", `/subjects/${claim}`)
    expect(kept.status).toBe(200)
    expect(kept.body.subject.externalId).toBeNull()
    expect(kept.body.consents).toHaveLength(1)
    const dump = await dumpEveryTable(server)
    for (const text of Object.values(dump)) expect(text.includes(externalId)).toBe(false)
  })

  it("answers 401 without an API key and 400 for a malformed id, erasing nothing", async () => {
    const subjectId = newSubjectId()
    await save(server, cookieSave({ subjectId }))
    for (const answer of [await erase(`/subjects/${subjectId}`, {} as never),
      await erase("/subjects?externalId=x", {} as never)])
    {
      expect(answer.status).toBe(401)
      expect(answer.body.cause.code).toBe("UNAUTHORIZED")
    }
    expect((await erase("/subjects/not-a-subject")).status).toBe(400)
    expect((await call(server, "GET", `/subjects/${subjectId}`)).status).toBe(200)
  })

  it("never leaves a half-erased subject when an erasure races saves of the same subject", async () => {
    for (let round = 0; round < 12; round++) {
      const subjectId = newSubjectId()
      const base = Date.now() - 10_000
      await save(server, cookieSave({ subjectId, givenAt: base }), { "user-agent": "RaceBrowser/1" })
      const saves = Array.from(
        { length: 3 },
        (_, i) => save(server, cookieSave({ subjectId, givenAt: base + 1 + i }), { "user-agent": "RaceBrowser/1" })
      )
      const [erased, ...saved] = await Promise.all([erase(`/subjects/${subjectId}`), ...saves])
      expect(erased!.status).toBe(200)
      for (const s of saved) expect(s.status).toBe(200)
      const subject = await server.db().query("SELECT id FROM svc_subjects WHERE id = ?", [subjectId])
      const keyed = await server.db().query("SELECT id, user_agent FROM svc_consents WHERE subject_id = ?", [subjectId])
      if (subject.length === 0) {
        // erased last: nothing may remain under the id
        expect(keyed, `round ${round}: records left under an erased id`).toEqual([])
      } else {
        // a save landed after the erasure: a whole fresh subject, its records intact
        expect(keyed.length, `round ${round}`).toBeGreaterThan(0)
        expect(keyed.every((row) => row.user_agent === "RaceBrowser/1")).toBe(true)
        expect((await call(server, "GET", `/subjects/${subjectId}`)).body.consents).toHaveLength(keyed.length)
      }
    }
  })
})
