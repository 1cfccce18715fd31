import { describe, expect, it } from "@effect/vitest"
import { useServer } from "./support/server.js"

/** Every endpoint of the spec's "Endpoints" table. */
const specEndpoints = [
  ["get", "/status"],
  ["get", "/manifest"],
  ["get", "/init"],
  ["post", "/sessions"],
  ["post", "/subjects"],
  ["get", "/subjects/{id}"],
  ["patch", "/subjects/{id}"],
  ["get", "/subjects"],
  ["get", "/consents/check"],
  ["get", "/experiments/{id}/summary"],
  ["put", "/legal-documents/{type}/current"],
  ["get", "/spec.json"],
  ["get", "/svc.js"],
  ["get", "/svc.headless.js"],
  ["get", "/svc.iab.js"]
] as const

const protectedEndpoints = [
  ["get", "/subjects"],
  ["get", "/consents/check"],
  ["get", "/experiments/{id}/summary"],
  ["put", "/legal-documents/{type}/current"]
]

describe("OpenAPI document", () => {
  const server = useServer("sqlite", { version: "3.1.0", openapi: { title: "Consent API" } })

  it("lists every endpoint of the spec with its security declaration", async () => {
    const response = await server.fetch("/spec.json")
    expect(response.status).toBe(200)
    const doc = await response.json()
    expect(doc.info).toMatchObject({ title: "Consent API", version: "3.1.0" })
    for (const [method, path] of specEndpoints) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined()
    }
    for (const [method, path] of protectedEndpoints) {
      expect(doc.paths[path!][method!].security, `${method} ${path}`).toEqual([{ apiKey: [] }])
    }
    expect(doc.paths["/status"].get.security).toEqual([])
  })

  it("serves an HTML API reference at /docs", async () => {
    const response = await server.fetch("/docs")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/html")
    const html = await response.text()
    expect(html).toContain("Consent API")
  })
})

describe("OpenAPI options", () => {
  const moved = useServer("sqlite", { openapi: { specPath: "/openapi.json", basePath: "/public" } })
  const disabled = useServer("sqlite", { openapi: { enabled: false }, script: { enabled: false } })

  it("honours specPath and the documented server basePath", async () => {
    expect((await moved.fetch("/spec.json")).status).toBe(404)
    const doc = await (await moved.fetch("/openapi.json")).json()
    expect(doc.servers).toEqual([{ url: "/public" }])
    expect(doc.paths["/openapi.json"]).toBeDefined()
  })

  it("removes the document and the reference when disabled", async () => {
    expect((await disabled.fetch("/spec.json")).status).toBe(404)
    expect((await disabled.fetch("/docs")).status).toBe(404)
    expect((await disabled.fetch("/svc.js")).status).toBe(404)
  })
})
