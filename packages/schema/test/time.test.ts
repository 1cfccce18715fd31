import { isBareDate, parseIsoDate } from "@svc/schema"
import { describe, expect, it } from "vitest"

describe("parseIsoDate", () => {
  it.each([
    ["2026-01-31", "2026-01-31T00:00:00.000Z"],
    ["2024-02-29", "2024-02-29T00:00:00.000Z"],
    ["2026-01-31T10:20:30Z", "2026-01-31T10:20:30.000Z"],
    ["2026-01-31T10:20:30.5+02:00", "2026-01-31T08:20:30.500Z"],
    ["2026-01-31T10:20", "2026-01-31T10:20:00.000Z"],
    ["0050-06-15", "0050-06-15T00:00:00.000Z"],
    ["0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000Z"]
  ])("reads %s exactly", (input, iso) => {
    expect(parseIsoDate(input)?.toISOString()).toBe(iso)
  })

  it.each(["2025-02-29", "2026-02-30", "2026-13-01", "2026-00-10", "2026-04-31", "2026-01-31T24:00:00Z",
    "2026-01-31T10:60", "31/01/2026", "2026-1-5", ""])(
      "refuses the impossible or malformed %j",
      (input) => {
        expect(parseIsoDate(input)).toBeUndefined()
      }
    )

  it("tells bare dates from date-times", () => {
    expect(isBareDate("2026-01-31")).toBe(true)
    expect(isBareDate("2026-01-31T00:00:00Z")).toBe(false)
  })
})
