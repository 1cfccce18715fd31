import { GppModel } from "@iabgpp/cmpapi"
import { describe, expect, it } from "vitest"
import { bearer, call, consentRows, cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

// Strings made by the IAB's own encoder: a US national section (id 7), and a TCF EU v2 one (id 2) with US Privacy (id 6).
const usnat = (() => {
  const model = new GppModel()
  model.setFieldValue("usnat", "SaleOptOutNotice", 1)
  model.setFieldValue("usnat", "SaleOptOut", 1)
  return model.encode()
})()
const TCF_AND_USP = "DBACNYA~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA~1YNN"
const API_KEY = "signal-strings-api-key-0123456789"
const TC_STRING = "CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA"

describe.each(dialects)("GPP and TC strings on saves [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY] })

  it("stores a GPP string with its section ids and a TC string, and returns them in reads", async () => {
    const body = cookieSave({ gppString: usnat })
    expect((await save(server, body)).status).toBe(200)
    const both = cookieSave({ gppString: TCF_AND_USP, tcString: TC_STRING })
    expect((await save(server, both)).status).toBe(200)

    const [one] = (await call(server, "GET", `/subjects/${body.subjectId}`)).body.consents
    expect(one).toMatchObject({ gppString: usnat, gppSectionIds: [7] })
    expect(one).not.toHaveProperty("tcString")
    const [two] = (await call(server, "GET", `/subjects/${both.subjectId}`)).body.consents
    expect(two).toMatchObject({ gppString: TCF_AND_USP, gppSectionIds: [2, 6], tcString: TC_STRING })
    const [row] = await consentRows(server, both.subjectId as string)
    expect(row).toMatchObject({ gpp_string: TCF_AND_USP, gpp_section_ids: "2,6", tc_string: TC_STRING })
    const exported = await call(server, "GET", `/subjects/${both.subjectId}/export`, undefined, bearer(API_KEY))
    expect(exported.body.subjects[0].records[0].signals).toEqual({
      gppString: TCF_AND_USP,
      gppSectionIds: [2, 6],
      tcString: TC_STRING
    })
    // A save without them stores none.
    const plain = cookieSave()
    await save(server, plain)
    const [three] = (await call(server, "GET", `/subjects/${plain.subjectId}`)).body.consents
    expect(three).not.toHaveProperty("gppString")
    expect(three).not.toHaveProperty("gppSectionIds")
    const plainExport = await call(server, "GET", `/subjects/${plain.subjectId}/export`, undefined, bearer(API_KEY))
    expect(plainExport.body.subjects[0].records[0]).not.toHaveProperty("signals")
  })

  it("refuses an undecodable GPP or TC string with 400 and the reason, and stores nothing", async () => {
    for (const [field, value, reason] of [
      ["gppString", "garbage", /gppString: not a decodable GPP string \(Unable to decode/],
      ["gppString", "DBABMA~zzzz", /gppString: not a decodable GPP string \(Unable to decode TcfEuV2/],
      ["gppString", "", /gppString: not a decodable GPP string \(it lists no section\)/],
      ["tcString", "CPXx", /tcString: not a decodable TCF v2 TC string \(Unable to decode TcfEuV2CoreSegment/]
    ] as const) {
      const body = cookieSave({ [field]: value })
      const refused = await save(server, body)
      expect(refused.status, `${field}=${value}`).toBe(400)
      expect(refused.body.cause.code).toBe("INVALID_REQUEST")
      expect(refused.body.message).toMatch(reason)
      expect(await consentRows(server, body.subjectId as string)).toEqual([])
    }
  })
})
