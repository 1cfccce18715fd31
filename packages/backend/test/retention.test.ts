import { purgeOnce, resolveOptions } from "@svc/backend"
import { describe, expect, it } from "vitest"
import { bearer, call, consentRows, cookieSave, newSubjectId, save, subjectRow } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { type TestOptions, useServer } from "./support/server.js"

const API_KEY = "retention-key-0123456789abcdef-01234"
const DAY = 86_400_000
const options: TestOptions = {
  apiKeys: [API_KEY],
  retention: { ipAddressDays: 30, userAgentDays: 60, recordDays: 400 },
  manifest: {
    policyRules: [{
      id: "short",
      match: { default: true },
      model: "opt-in",
      categories: ["measurement"],
      validityDays: 10
    }]
  }
}

describe.each(dialects)("retention [%s]", (dialect) => {
  const server = useServer(dialect, options)
  const purge = (now: number) => purgeOnce({ ...options, database: server.db().database }, { now })
  const row = async (consentId: string) =>
    (await server.db().query(
      "SELECT subject_id, ip_address, user_agent, expired_at, receipts FROM svc_consents WHERE id = ?",
      [consentId]
    ))[0]!

  it("clears IPs and user agents past their windows, retires old records, expires choices past validity; as of a set clock", async () => {
    const now = Date.now()
    const headers = { ...bearer(API_KEY), "user-agent": "RetainedBrowser/1", "x-forwarded-for": "198.51.100.9" }
    const saveAt = async (daysAgo: number, extra: Record<string, unknown> = {}) =>
      (await save(server, cookieSave({ givenAt: now - daysAgo * DAY, ...extra }), headers)).body.consentId as string
    const r10 = await saveAt(10)
    const r45 = await saveAt(45)
    const r100 = await saveAt(100)
    const r500 = await saveAt(500)
    const user = `retention-user-${dialect}`
    const r370 = await saveAt(370, { externalSubjectId: user })
    const ruled = await saveAt(20)
    // made under rule "short" (validityDays 10), as a signed snapshot would have recorded it
    await server.db().query("UPDATE svc_consents SET policy_id = 'short' WHERE id = ?", [ruled])
    const check = async () =>
      (await call(server, "GET", `/consents/check?externalId=${user}&type=cookie_banner`, undefined, bearer(API_KEY)))
        .body.results.cookie_banner
    expect((await check()).hasConsent).toBe(true)

    const first = await purge(now)
    // r500's subject had that one record and no link: it goes with it
    expect(first).toEqual({
      ipAddressesCleared: 4,
      userAgentsCleared: 3,
      recordsRetired: 1,
      choicesExpired: 3,
      subjectsDeleted: 1,
      monthsDropped: 0
    })
    expect(await row(r10)).toMatchObject({
      ip_address: expect.stringMatching(/^198\.51\.100\./),
      user_agent: "RetainedBrowser/1",
      expired_at: null
    })
    expect(await row(r45)).toMatchObject({ ip_address: null, user_agent: "RetainedBrowser/1" })
    expect(await row(r100)).toMatchObject({ ip_address: null, user_agent: null, expired_at: null })
    const retired = await row(r500)
    expect(retired).toMatchObject({ subject_id: "retired", ip_address: null, user_agent: null })
    expect(retired.expired_at).not.toBeNull()
    expect(retired.receipts).toContain("measurement") // the proof of what was decided stays
    expect((await row(ruled)).expired_at).not.toBeNull()
    expect((await row(r370)).expired_at).not.toBeNull()
    // an expired choice is no consent any more
    expect(await check()).toEqual({ hasConsent: false, isLatestPolicy: false })

    // the same run again changes nothing
    expect(await purge(now)).toEqual({
      ipAddressesCleared: 0,
      userAgentsCleared: 0,
      recordsRetired: 0,
      choicesExpired: 0,
      subjectsDeleted: 0,
      monthsDropped: 0
    })
    // 25 days later r10 (35 days) and the 20-day record (45) lose their IPs, r45 (70) its user agent
    expect(await purge(now + 25 * DAY)).toEqual({
      ipAddressesCleared: 2,
      userAgentsCleared: 1,
      recordsRetired: 0,
      choicesExpired: 0,
      subjectsDeleted: 0,
      monthsDropped: 0
    })
    expect(await row(r10)).toMatchObject({ ip_address: null, user_agent: "RetainedBrowser/1" })
    expect(await row(r45)).toMatchObject({ user_agent: null })
  })

  it("deletes a subject once no record and no identity link is left, and only then", async () => {
    const now = Date.now()
    const exportOf = (id: string) => call(server, "GET", `/subjects/${id}/export`, undefined, bearer(API_KEY))
    const subject = async (...daysAgo: ReadonlyArray<number>) => {
      const subjectId = newSubjectId()
      for (const d of daysAgo)
        await save(
          server,
          cookieSave({ subjectId, givenAt: now - d * DAY, preferences: { necessary: true, measurement: d > 100 } })
        )
      return subjectId
    }
    const idle = [await subject(500), await subject(450, 420)]
    const stillRecorded = await subject(500, 5)
    const linked = newSubjectId()
    await save(
      server,
      cookieSave({ subjectId: linked, givenAt: now - 500 * DAY, externalSubjectId: `retention-linked-${dialect}` })
    )
    for (const id of [...idle, stillRecorded, linked]) expect((await exportOf(id)).status).toBe(200)

    const report = await purge(now)
    expect(report).toMatchObject({ recordsRetired: 5, subjectsDeleted: 2 })
    for (const id of idle) {
      expect(await subjectRow(server, id)).toBeUndefined()
      expect((await exportOf(id)).status).toBe(404)
    }
    expect((await exportOf(stillRecorded)).body.subjects[0].records).toHaveLength(1)
    // an identity link is the operator's to remove (erasure), not retention's
    expect(await subjectRow(server, linked)).toMatchObject({ external_id: `retention-linked-${dialect}` })
    expect((await purge(now)).subjectsDeleted).toBe(0)
    // the visitor comes back with the same id: a fresh subject
    expect((await save(server, cookieSave({ subjectId: idle[0] }))).status).toBe(200)
    expect((await exportOf(idle[0]!)).body.subjects[0].records).toHaveLength(1)
  })

  it("never deletes a subject a racing save is recording under", async () => {
    const now = Date.now()
    const ids = Array.from({ length: 12 }, () => newSubjectId())
    for (const subjectId of ids) await save(server, cookieSave({ subjectId, givenAt: now - 500 * DAY }))
    // each old record is retired and its subject found idle while the visitor saves again
    const [report] = await Promise.all([purge(now), ...ids.map((subjectId) => save(server, cookieSave({ subjectId })))])
    expect(report!.recordsRetired).toBe(ids.length)
    for (const id of ids) {
      expect((await consentRows(server, id)).length, id).toBe(1)
      expect(await subjectRow(server, id), id).toBeDefined()
    }
  })

  it("runs safely on several replicas at once: every row changed once, counted once", async () => {
    const now = Date.now() + 1000 * DAY
    for (let i = 0; i < 30; i++)
      await save(server, cookieSave({ givenAt: Date.now() - i * DAY }), { "x-forwarded-for": "198.51.100.1" })
    const pendingIps = Number(
      (await server.db().query("SELECT COUNT(*) AS n FROM svc_consents WHERE ip_address IS NOT NULL"))[0]!.n
    )
    expect(pendingIps).toBeGreaterThanOrEqual(30)
    const pendingSubjects = Number(
      (await server.db().query("SELECT COUNT(*) AS n FROM svc_subjects WHERE external_id IS NULL"))[0]!.n
    )
    expect(pendingSubjects).toBeGreaterThanOrEqual(30)
    const reports = await Promise.all([purge(now), purge(now), purge(now)])
    expect(reports.reduce((sum, r) => sum + r.ipAddressesCleared, 0)).toBe(pendingIps)
    expect(
      Number((await server.db().query("SELECT COUNT(*) AS n FROM svc_consents WHERE ip_address IS NOT NULL"))[0]!.n)
    ).toBe(0)
    // every record is past recordDays now: every subject without a link went, once
    const unlinked = Number(
      (await server.db().query("SELECT COUNT(*) AS n FROM svc_subjects WHERE external_id IS NULL"))[0]!.n
    )
    expect(unlinked).toBe(0)
    expect(reports.reduce((sum, r) => sum + r.subjectsDeleted, 0)).toBe(pendingSubjects)
  })

  it("validates the retention option", () => {
    const database = { dialect: "sqlite" as const, url: ":memory:" }
    for (const retention of [{ ipAddressDays: 0 }, { recordDays: 1.5 }, { userAgentDays: -1 }, {
      intervalMinutes: 0
    }]) {
      expect(() => resolveOptions({ database, retention } as never), JSON.stringify(retention)).toThrow(/retention/)
    }
    expect(() => resolveOptions({ database, retention: { ipAddressDays: 7, recordDays: 3650 } })).not.toThrow()
  })
})
