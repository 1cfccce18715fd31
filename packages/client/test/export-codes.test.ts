import { describe, expect, it } from "vitest"
import { documentedCodes } from "../src/documented.js"
import { createSvcClient } from "../src/index.js"
import { exportBackendCodes } from "../src/methods/consents-export.js"

/*
 * consents.export reads a refused answer as every other method does: a code its route documents
 * keeps its code, any other is UNEXPECTED_RESPONSE with the backend's code in serverCode.
 */

const exportWith = async (status: number, body: string, contentType = "application/json") => {
  const client = createSvcClient({
    baseUrl: "https://svc.test",
    apiKey: "export-codes-test-key-0123456789ab",
    retry: false,
    fetch: async () => new Response(body, { status, headers: { "content-type": contentType } })
  })
  const items = []
  for await (const item of client.consents.export({ from: "2025-06-01", to: "2025-06-01" })) items.push(item)
  expect(items).toHaveLength(1)
  const [item] = items
  if (item === undefined || item.ok) throw new Error("expected one failure")
  return item.error
}

const errorBody = (code: string, message = `a ${code} answer`) => JSON.stringify({ message, cause: { code } })

describe("consents.export: refused answers", () => {
  it("lists exactly the backend codes the contract documents for GET /consents/export", () => {
    expect([...exportBackendCodes].sort()).toEqual([...documentedCodes("GET", "/consents/export")].sort())
  })

  it("keeps a documented code, with the backend's message", async () => {
    const error = await exportWith(400, errorBody("INVALID_REQUEST", "from: not a date"))
    expect(error).toMatchObject({ code: "INVALID_REQUEST", status: 400, message: "from: not a date", retryable: false })
    expect(error.serverCode).toBeUndefined()
    expect(await exportWith(429, errorBody("RATE_LIMITED"))).toMatchObject({ code: "RATE_LIMITED", retryable: true })
  })

  it("answers a backend code the route does not document with UNEXPECTED_RESPONSE, keeping it in serverCode", async () => {
    for (const code of ["NOT_FOUND", "CONFLICT", "STALE_POLICY", "SOMETHING_NEW"]) {
      const error = await exportWith(409, errorBody(code))
      expect(error, code).toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 409, serverCode: code })
      expect(error.message, code).toContain(`code ${code}, which is not documented for this call`)
    }
  })

  it("answers an HTML error page with UNEXPECTED_RESPONSE", async () => {
    const error = await exportWith(502, "<html>Bad gateway</html>", "text/html")
    expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 502, retryable: true })
    expect(error.serverCode).toBeUndefined()
  })
})
