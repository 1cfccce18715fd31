import { describe, expect, it } from "vitest"
import { allPreferences, bearer, call, consentRows, cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServersOnOneDatabase } from "./support/shared-database.js"
import type { TestOptions } from "./support/server.js"

const API_KEY = "gpc-proof-api-key-0123456789abcdef"
const all = ["measurement", "marketing", "functionality", "experience"] as const
const manifest: TestOptions["manifest"] = {
  policyRules: [
    {
      id: "us-ca",
      match: { regions: ["US-CA"] },
      model: "opt-out",
      categories: all,
      gpcDenies: ["marketing", "experience"]
    },
    { id: "rest", match: { default: true }, model: "opt-in", categories: all }
  ]
}

describe.each(dialects)("GPC proof on saves [%s]", (dialect) => {
  const [signed, unsigned] = useServersOnOneDatabase(dialect, [
    {
      manifest,
      apiKeys: [API_KEY],
      policySnapshot: { signingKey: "gpc-proof-policy-snapshot-signing-key-0123456789" }
    },
    { manifest }
  ])

  const tokenFor = async (query: string, headers: Record<string, string> = {}) =>
    (await call(signed!, "GET", `/init?${query}`, undefined, headers)).body.policySnapshotToken as string

  it("a GPC-denied category claimed as granted is stored as denied; the response names it and reads show the proof", async () => {
    const token = await tokenFor("country=US&region=CA&gpc=1")
    const body = cookieSave({ policySnapshotToken: token, preferences: allPreferences(true) })
    const first = await save(signed!, body)
    expect(first.status).toBe(200)
    expect(first.body.gpcOverridden).toEqual(["marketing", "experience"])
    expect(first.body.appliedPreferences).toMatchObject({
      measurement: true,
      marketing: false,
      functionality: true,
      experience: false
    })

    const view = await call(signed!, "GET", `/subjects/${body.subjectId}`)
    const [record] = view.body.consents
    expect(record.gpc).toEqual({ denied: ["marketing", "experience"], overridden: ["marketing", "experience"] })
    expect(record.receipts.marketing.value).toBe(false)
    expect(record.receipts.measurement.value).toBe(true)
    expect(view.body.subjectChoice.categories.marketing.value).toBe(false)
    const [row] = await consentRows(signed!, body.subjectId as string)
    expect(JSON.parse(row!.gpc as string)).toEqual({
      denied: ["marketing", "experience"],
      overridden: ["marketing", "experience"]
    })

    // The access export carries the proof too.
    const exported = await call(signed!, "GET", `/subjects/${body.subjectId}/export`, undefined, bearer(API_KEY))
    expect(exported.status).toBe(200)
    expect(exported.body.subjects[0].records[0].signals).toEqual({
      gpc: { denied: ["marketing", "experience"], overridden: ["marketing", "experience"] }
    })

    // The same act again is the same record, answered the same way.
    const again = await save(signed!, body)
    expect(again.status).toBe(200)
    expect(again.body.consentId).toBe(first.body.consentId)
    expect(again.body.gpcOverridden).toEqual(["marketing", "experience"])
  })

  it("Sec-GPC: 1 on the save applies the signal even when /init did not see it", async () => {
    const token = await tokenFor("country=US&region=CA")
    const body = cookieSave({ policySnapshotToken: token, preferences: { ...allPreferences(true), experience: false } })
    const saved = await save(signed!, body, { "sec-gpc": "1" })
    expect(saved.status).toBe(200)
    expect(saved.body.gpcOverridden).toEqual(["marketing"])
    const [record] = (await call(signed!, "GET", `/subjects/${body.subjectId}`)).body.consents
    expect(record.gpc).toEqual({ denied: ["marketing", "experience"], overridden: ["marketing"] })
  })

  it("without the signal nothing is overridden and no proof is recorded; with it and nothing to override the proof says so", async () => {
    const plain = cookieSave({
      policySnapshotToken: await tokenFor("country=US&region=CA"),
      preferences: allPreferences(true)
    })
    const saved = await save(signed!, plain)
    expect(saved.body).not.toHaveProperty("gpcOverridden")
    expect(saved.body.appliedPreferences.marketing).toBe(true)
    const [record] = (await call(signed!, "GET", `/subjects/${plain.subjectId}`)).body.consents
    expect(record).not.toHaveProperty("gpc")

    const optedOut = cookieSave({
      policySnapshotToken: await tokenFor("country=US&region=CA&gpc=1"),
      preferences: allPreferences(false)
    })
    const quiet = await save(signed!, optedOut)
    expect(quiet.body.gpcOverridden).toEqual([])
    expect((await call(signed!, "GET", `/subjects/${optedOut.subjectId}`)).body.consents[0].gpc).toEqual({
      denied: ["marketing", "experience"],
      overridden: []
    })
  })

  it("without policy signing the rule comes from policyId; an unknown rule records the signal and denies nothing", async () => {
    const named = cookieSave({ policyId: "us-ca", preferences: allPreferences(true) })
    const saved = await save(unsigned!, named, { "sec-gpc": "1" })
    expect(saved.status).toBe(200)
    expect(saved.body.gpcOverridden).toEqual(["marketing", "experience"])
    const anonymous = cookieSave({ preferences: allPreferences(true) })
    const unknown = await save(unsigned!, anonymous, { "sec-gpc": "1" })
    expect(unknown.body.gpcOverridden).toEqual([])
    expect(unknown.body.appliedPreferences.marketing).toBe(true)
  })
})
