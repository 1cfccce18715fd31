import type { SqlDialect } from "@svc/backend"
import { SvcEvent } from "@svc/schema"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { allPreferences, bearer, call, consentRows, cookieSave, save, subjectRow } from "./support/consent-saves.js"
import { dialects, type FreshDatabase } from "./support/dialects.js"
import { useServer } from "./support/server.js"
import { newWebhookSecret } from "./support/webhook-receiver.js"

const API_KEY = "outbox-key-0123456789abcdef-01234567"

/** A real failure inside the transaction: the database refuses inserts into `table` whose `column` holds `marker`. */
const refuseInserts = async (db: FreshDatabase, dialect: SqlDialect, table: string, column: string, marker: string) => {
  const name = `svc_t_${table}_${marker.replace(/[^a-z]/g, "")}`
  switch (dialect) {
    case "sqlite":
      return void await db.query(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table}
        WHEN NEW.${column} LIKE '%${marker}%' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`)
    case "postgres":
      await db.query(`CREATE FUNCTION ${name}() RETURNS trigger AS $$
        BEGIN IF NEW.${column} LIKE '%${marker}%' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$
        LANGUAGE plpgsql`)
      return void await db.query(
        `CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`
      )
    case "mysql":
      return void await db.query(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW
        BEGIN IF NEW.${column} LIKE '%${marker}%' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected failure'; END IF; END`)
  }
}

const decodeEvent = Schema.decodeUnknownSync(SvcEvent)

describe.each(dialects)("consent events are written with their facts [%s]", (dialect) => {
  const server = useServer(dialect, {
    apiKeys: [API_KEY],
    webhooks: [
      { id: "crm", url: "http://127.0.0.1:9/hooks", secret: newWebhookSecret() },
      {
        id: "legal-only",
        url: "https://legal.example/hooks",
        secret: newWebhookSecret(),
        events: ["legal_document.published"]
      }
    ],
    // Nothing is delivered here: the rows stay as written.
    events: { delivery: { enabled: false } }
  })
  const eventsOfType = async (type: string) =>
    (await server.db().query("SELECT id, type, payload FROM svc_events WHERE type = ? ORDER BY seq", [type])).map((
      row
    ) => ({
      ...row,
      event: decodeEvent(JSON.parse(String(row.payload)))
    }))
  const eventsFor = async (subjectId: string) =>
    (await server.db().query("SELECT type, payload FROM svc_events ORDER BY seq")).map((row) =>
      JSON.parse(String(row.payload))
    )
      .filter((event) => JSON.stringify(event.data).includes(subjectId))
  const deliveriesOf = (eventId: string) =>
    server.db().query(
      "SELECT d.endpoint, d.status FROM svc_event_deliveries d JOIN svc_events e ON e.seq = d.event_seq WHERE e.id = ? ORDER BY d.endpoint",
      [eventId]
    )

  it("a save writes one consent.recorded event in the export's record shape, with a pending delivery per endpoint that takes it", async () => {
    const body = cookieSave({ externalSubjectId: "events-user", action: "accept_all", surface: "banner" })
    expect((await save(server, body, bearer(API_KEY))).status).toBe(200)
    const [event, ...more] = await eventsFor(body.subjectId as string)
    expect(more).toEqual([])
    const decoded = decodeEvent(event)
    expect(decoded.type).toBe("consent.recorded")
    expect(decoded.id).toMatch(/^evt_/)
    expect(decoded.tenantId).toBe("")
    if (decoded.type !== "consent.recorded") throw new Error("unreachable")
    const [consent] = await consentRows(server, body.subjectId as string)
    expect(decoded.data.recordId).toBe(consent!.id)
    expect(decoded.data.principal).toEqual({
      subjectId: body.subjectId,
      externalIds: [{ externalId: "events-user", identityProvider: "external", verified: true }]
    })
    expect(decoded.data.purposes.every((p) => p.granted)).toBe(true)
    expect(decoded.data.collection.action).toBe("accept_all")
    // Events carry no proof fields.
    expect(decoded.data.proof).toEqual({ ipAddress: null, userAgent: null })
    expect(await deliveriesOf(decoded.id)).toEqual([{ endpoint: "crm", status: "pending" }])

    // An idempotent replay stores nothing and sends nothing.
    expect((await save(server, body, bearer(API_KEY))).status).toBe(200)
    expect(await eventsFor(body.subjectId as string)).toHaveLength(1)
  })

  it("turning off a category the previous act had on adds consent.withdrawn", async () => {
    const first = cookieSave({ givenAt: Date.now() - 10_000 })
    expect((await save(server, first)).status).toBe(200)
    const second = { ...first, givenAt: Date.now(), preferences: { ...allPreferences(true), marketing: false } }
    expect((await save(server, second)).status).toBe(200)
    const events = (await eventsFor(first.subjectId as string)).map((e) => decodeEvent(e))
    expect(events.map((e) => e.type)).toEqual(["consent.recorded", "consent.recorded", "consent.withdrawn"])
    const withdrawn = events[2]!
    if (withdrawn.type !== "consent.withdrawn") throw new Error("unreachable")
    expect(withdrawn.data.withdrawnCategories).toEqual(["marketing"])
    expect(withdrawn.data.previousRecordId).toBe((events[0]!.data as { recordId: string }).recordId)

    // Granting again withdraws nothing.
    expect((await save(server, { ...first, givenAt: Date.now() + 1 })).status).toBe(200)
    expect((await eventsFor(first.subjectId as string)).filter((e) => e.type === "consent.withdrawn")).toHaveLength(1)
  })

  it("an event that cannot be written undoes the save: no subject, no link, no act", async () => {
    await refuseInserts(server.db(), dialect, "svc_events", "payload", "event-fails.example")
    const body = cookieSave({ domain: "event-fails.example", externalSubjectId: "atomic-events-user" })
    const answer = await save(server, body, bearer(API_KEY))
    expect(answer.status).toBe(503)
    expect(answer.body).toEqual({ message: expect.any(String), cause: { code: "DATABASE_ERROR" } })
    expect(await subjectRow(server, body.subjectId as string)).toBeUndefined()
    expect(await consentRows(server, body.subjectId as string)).toEqual([])
    expect(await eventsFor(body.subjectId as string)).toEqual([])
  })

  it("an act that cannot be written leaves no event", async () => {
    await refuseInserts(server.db(), dialect, "svc_consents", "domain", "act-fails.example")
    const body = cookieSave({ domain: "act-fails.example" })
    expect((await save(server, body)).status).toBe(503)
    expect(await eventsFor(body.subjectId as string)).toEqual([])
    const [orphans] = await server.db().query(
      "SELECT COUNT(*) AS n FROM svc_event_deliveries d LEFT JOIN svc_events e ON e.seq = d.event_seq WHERE e.id IS NULL"
    )
    expect(Number(orphans!.n)).toBe(0)
  })

  it("a link writes subject.linked with it; when the event cannot be written the link is not changed", async () => {
    const body = cookieSave()
    expect((await save(server, body)).status).toBe(200)
    const subjectId = body.subjectId as string
    expect(
      (await call(server, "PATCH", `/subjects/${subjectId}`, { externalId: "linked-user" }, bearer(API_KEY))).status
    ).toBe(200)
    const linked = (await eventsFor(subjectId)).map((e) => decodeEvent(e)).filter((e) => e.type === "subject.linked")
    expect(linked.map((e) => e.data)).toEqual([{
      subjectId,
      externalId: "linked-user",
      identityProvider: "external",
      verified: true
    }])

    await refuseInserts(server.db(), dialect, "svc_events", "payload", "refused-link-user")
    const refused = await call(
      server,
      "PATCH",
      `/subjects/${subjectId}`,
      { externalId: "refused-link-user" },
      bearer(API_KEY)
    )
    expect(refused.status).toBe(503)
    expect((await subjectRow(server, subjectId))?.external_id).toBe("linked-user")
  })

  it("a publish writes legal_document.published with it (to every endpoint taking the type); a refused event undoes the publish", async () => {
    const published = await call(server, "PUT", "/legal-documents/privacy_policy/current", {
      version: "1.0",
      hash: "hash-events-1",
      effectiveDate: "2026-01-01T00:00:00Z"
    }, bearer(API_KEY))
    expect(published.status).toBe(200)
    const [event] = await eventsOfType("legal_document.published")
    expect(event!.event.data).toMatchObject({ id: published.body.policy.id, version: "1.0", hash: "hash-events-1" })
    expect(await deliveriesOf(event!.event.id)).toEqual([
      { endpoint: "crm", status: "pending" },
      { endpoint: "legal-only", status: "pending" }
    ])

    await refuseInserts(server.db(), dialect, "svc_events", "payload", "hash-refused")
    const refused = await call(server, "PUT", "/legal-documents/privacy_policy/current", {
      version: "2.0",
      hash: "hash-refused",
      effectiveDate: "2026-02-01T00:00:00Z"
    }, bearer(API_KEY))
    expect(refused.status).toBe(503)
    expect(await server.db().query("SELECT id FROM svc_legal_documents WHERE hash = ?", ["hash-refused"])).toEqual([])
    expect(await eventsOfType("legal_document.published")).toHaveLength(1)
  })
})
