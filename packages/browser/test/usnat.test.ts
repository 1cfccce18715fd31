// The bundle's own usnat encoder, checked against the IAB Tech Lab's library (@iabgpp/cmpapi).
import { GppModel } from "@iabgpp/cmpapi"
import { describe, expect, it } from "vitest"
import { encodeUsnat, usnatFields } from "../src/iab/usnat.js"

describe("usnat GPP strings", () => {
  it.each([
    [true, false, false],
    [false, false, false],
    [false, true, false],
    [true, true, true],
    [false, true, true]
  ])(
    "marketing %s, GPC %s, MSPA %s: the IAB library decodes exactly the fields __gpp reports",
    (marketing, gpc, mspa) => {
      const fields = usnatFields(marketing, gpc, mspa)
      const encoded = encodeUsnat(fields)
      const decoded = new GppModel(encoded)
      expect(decoded.getSectionIds()).toEqual([7])
      expect(decoded.getSection("usnat")).toEqual(fields)
      expect(decoded.getFieldValue("usnat", "SaleOptOut")).toBe(marketing ? 2 : 1)
      expect(decoded.getFieldValue("usnat", "Gpc")).toBe(gpc)
      // and the library, given the same fields, writes the same string
      const model = new GppModel()
      for (const [name, value] of Object.entries(fields)) model.setFieldValue("usnat", name, value)
      expect(model.encode()).toBe(encoded)
    }
  )
})
