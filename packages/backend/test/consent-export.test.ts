import { GppModel } from "@iabgpp/cmpapi"
import { StandardConsentRecord } from "@svc/schema"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { allPreferences, bearer, call, cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "period-export-key-0123456789abcdef"
const decode = Schema.decodeUnknownSync(StandardConsentRecord)
const all = ["measurement", "marketing", "functionality", "experience"] as const
// GPC denies two categories here, so the CSV's GPC columns have lists to show
const manifest = {
  policyRules: [{
    id: "rest",
    match: { default: true },
    model: "opt-out",
    categories: all,
    gpcDenies: ["marketing", "experience"]
  }]
} as const

/** Parses a CSV text (RFC 4180 quoting) into rows of fields. */
const parseCsv = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ",") {
      row.push(field)
      field = ""
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field)
      rows.push(row)
      row = []
      field = ""
      i++
    } else field += c
  }
  return rows
}

describe.each(dialects)("GET /consents/export [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY], manifest: manifest as never })
  const get = (query: string, headers = bearer(API_KEY)) => server.fetch(`/consents/export?${query}`, { headers })
  // a day of its own per test, far from Date.now()
  const day = (n: number) => Date.UTC(2025, 2, n, 12)

  it("streams every record of the period as NDJSON, oldest first, each decoding as a StandardConsentRecord", async () => {
    const subjects = [newSubjectId(), newSubjectId(), newSubjectId()]
    for (const [i, subjectId] of subjects.entries()) {
      await save(server, cookieSave({ subjectId, givenAt: day(3) + i * 1000, externalSubjectId: `period-${i}` }), {
        ...bearer(API_KEY),
        "user-agent": "Period/1"
      })
    }
    await save(server, cookieSave({ givenAt: day(2) }))
    await save(server, cookieSave({ givenAt: day(4) + 1 }))
    const response = await get("from=2025-03-03&to=2025-03-03")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^application\/x-ndjson/)
    const lines = (await response.text()).split("\n")
    expect(lines.pop()).toBe("")
    const records = lines.map((line) => decode(JSON.parse(line)))
    // each line is exactly what the schema encodes the record to
    records.forEach((record, i) =>
      expect(Schema.encodeSync(StandardConsentRecord)(record)).toEqual(JSON.parse(lines[i]!))
    )
    expect(records.map((r) => r.principal.subjectId)).toEqual(subjects)
    expect(records[0]).toMatchObject({
      policyType: "cookie_banner",
      principal: { externalIds: [{ externalId: "period-0", identityProvider: "external", verified: true }] },
      proof: { userAgent: "Period/1" },
      events: [{ type: "given" }, { type: "expired" }]
    })
  })

  it("pages through more records than one page holds, without gaps or repeats", async () => {
    // 1,100 rows (two full pages of 500 and a bit), written straight into the table: saving them one
    // by one over HTTP is what the other tests do, and would only make this one slow. Seven distinct
    // times, so the id breaks ties across page boundaries.
    const base = day(10)
    const receipts = JSON.stringify({ measurement: { value: true, confirmedAt: base } })
    const ids: Array<string> = []
    for (let batch = 0; batch < 11; batch++) {
      const values: Array<unknown> = []
      for (let i = 0; i < 100; i++) {
        const id = `cns_page${String(batch * 100 + i).padStart(5, "0")}`
        ids.push(id)
        values.push(
          id,
          "",
          `sub_pagefixture${batch}`,
          `key-${id}`,
          "digest",
          "cookie_banner",
          "paging.example",
          base + (i % 7),
          base,
          receipts
        )
      }
      await server.db().query(
        `INSERT INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at, created_at, receipts) VALUES ${
          Array.from({ length: 100 }, () => "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")
        }`,
        values
      )
    }
    const text = await (await get("from=2025-03-10&to=2025-03-10&domain=paging.example")).text()
    const exported = text.trim().split("\n").map((line) => JSON.parse(line) as { recordId: string; givenAt: string })
    expect(exported).toHaveLength(1100)
    expect(new Set(exported.map((r) => r.recordId))).toEqual(new Set(ids))
    const times = exported.map((r) => Date.parse(r.givenAt))
    expect(times).toEqual([...times].sort((a, b) => a - b))
  })

  it("filters by type, domain and policyId", async () => {
    await save(server, cookieSave({ givenAt: day(12), domain: "a.example" }))
    await save(server, cookieSave({ givenAt: day(12) + 1, domain: "b.example" }))
    const policy = (await call(server, "PUT", "/legal-documents/privacy_policy_period/current", {
      version: "1",
      hash: "period-h",
      effectiveDate: "2025-01-01"
    }, bearer(API_KEY))).body.policy
    await save(server, {
      type: "privacy_policy_period",
      domain: "a.example",
      subjectId: newSubjectId(),
      givenAt: day(12) + 2
    })
    const count = async (query: string) =>
      (await (await get(`from=2025-03-12&to=2025-03-12&${query}`)).text()).trim().split("\n").filter((l) => l !== "")
        .length
    expect(await count("")).toBe(3)
    expect(await count("domain=a.example")).toBe(2)
    expect(await count("type=cookie_banner")).toBe(2)
    expect(await count(`policyId=${policy.id}`)).toBe(1)
    expect(await count("type=privacy_policy_period&domain=b.example")).toBe(0)
  })

  it("answers CSV with a header row and one row per category receipt", async () => {
    const subjectId = newSubjectId()
    await save(
      server,
      cookieSave({
        subjectId,
        givenAt: day(14),
        preferences: { ...allPreferences(false), measurement: true }
      }),
      { "user-agent": '=HYPERLINK("x"), "quoted"' }
    )
    const response = await get("from=2025-03-14T00:00:00Z&to=2025-03-14T23:59:59Z&format=csv")
    expect(response.headers.get("content-type")).toMatch(/^text\/csv/)
    const rows = parseCsv(await response.text())
    const [header, ...body] = rows
    expect(header).toContain("recordId")
    expect(body).toHaveLength(4)
    const column = (name: string) => header!.indexOf(name)
    expect(body.map((r) => r[column("category")]).sort()).toEqual(["experience", "functionality", "marketing",
      "measurement"])
    expect(body.find((r) => r[column("category")] === "measurement")![column("granted")]).toBe("true")
    expect(body.every((r) => r[column("subjectId")] === subjectId)).toBe(true)
    // a formula-looking user agent is defused, and quotes survive
    expect(body[0]![column("userAgent")]).toBe('\'=HYPERLINK("x"), "quoted"')
  })

  it("carries the GPC and GPP/TC signals in CSV columns, as the NDJSON export's signals, on every row of the record", async () => {
    const model = new GppModel()
    model.setFieldValue("usnat", "SaleOptOutNotice", 1)
    model.setFieldValue("usnat", "SaleOptOut", 1)
    const gppString = model.encode()
    const tcString = "CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA"
    const signalled = cookieSave({
      givenAt: day(15),
      policyId: "rest",
      preferences: allPreferences(true),
      gppString,
      tcString
    })
    expect((await save(server, signalled, { "sec-gpc": "1" })).status).toBe(200)
    const plain = cookieSave({ givenAt: day(15) + 1000 })
    await save(server, plain)
    const period = "from=2025-03-15T00:00:00Z&to=2025-03-15T23:59:59Z"
    const [ndjson] = (await (await get(period)).text()).trim().split("\n").map((l) => decode(JSON.parse(l)))
    const [header, ...body] = parseCsv(await (await get(`${period}&format=csv`)).text())
    const column = (name: string) => header!.indexOf(name)
    const signalColumns = ["gpc", "gpcDenied", "gpcOverridden", "gppString", "gppSectionIds", "tcString"]
    expect(header!.slice(-6)).toEqual(signalColumns)
    const rowsOf = (subjectId: unknown) => body.filter((r) => r[column("subjectId")] === subjectId)
    const signals = ndjson!.signals!
    expect(signals).toMatchObject({ gppString, gppSectionIds: [7], tcString })
    expect(signals.gpc).toEqual({ denied: ["marketing", "experience"], overridden: ["marketing", "experience"] })
    const expected = [
      "true",
      "marketing;experience",
      "marketing;experience",
      gppString,
      "7",
      tcString
    ]
    expect(rowsOf(signalled.subjectId)).toHaveLength(4)
    for (const row of rowsOf(signalled.subjectId)) expect(row.slice(-6)).toEqual(expected)
    // a record without signals leaves the columns empty
    for (const row of rowsOf(plain.subjectId)) expect(row.slice(-6)).toEqual(["", "", "", "", "", ""])
  })

  it("refuses a period over 366 days, from after to, a bad date or format with 400, and no API key with 401", async () => {
    for (const query of ["from=2025-01-01&to=2026-01-02", "from=2025-03-02&to=2025-03-01",
      "from=yesterday&to=2025-03-01", "from=2025-01-01&to=2025-01-02&format=xml", "to=2025-01-01"])
    {
      const response = await get(query)
      expect(response.status, query).toBe(400)
      expect((await response.json()).cause.code).toBe("INVALID_REQUEST")
    }
    expect((await get("from=2025-01-01&to=2026-01-01")).status).toBe(200)
    const unauthorized = await get("from=2025-01-01&to=2025-01-02", {} as never)
    expect(unauthorized.status).toBe(401)
  })
})
