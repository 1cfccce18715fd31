import { request as httpRequest } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import { negotiateCoding } from "../src/http/compression.js"
import { cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | undefined>
  /** The bytes on the wire (fetch would decode them). */
  readonly wire: Buffer
}

/** A request through node:http, which leaves the body as sent. */
const raw = (url: string, headers: Record<string, string> = {}, method = "GET"): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on(
        "end",
        () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers as Record<string, string | undefined>,
            wire: Buffer.concat(chunks)
          })
      )
    })
    req.on("error", reject)
    req.end()
  })

const decoded = (response: Raw): Buffer => {
  const coding = response.headers["content-encoding"]
  if (coding === "gzip") return gunzipSync(response.wire)
  if (coding === "br") return brotliDecompressSync(response.wire)
  expect(coding).toBeUndefined()
  return response.wire
}

const varies = (response: Raw) => (response.headers.vary ?? "").split(",").map((v) => v.trim().toLowerCase())

const vendors = Array.from(
  { length: 60 },
  (_, i) => ({ id: `vendor-${i}`, name: `Example Vendor ${i}`, category: "marketing" as const })
)

describe("Accept-Encoding negotiation", () => {
  it("respects q-values, prefers brotli then gzip on a tie, and falls back to identity", () => {
    expect(negotiateCoding(undefined)).toBe("identity")
    expect(negotiateCoding("")).toBe("identity")
    expect(negotiateCoding("gzip, deflate, br")).toBe("br")
    expect(negotiateCoding("gzip")).toBe("gzip")
    expect(negotiateCoding("x-gzip")).toBe("gzip")
    expect(negotiateCoding("br;q=0.5, gzip;q=0.8")).toBe("gzip")
    expect(negotiateCoding("br;q=0, gzip")).toBe("gzip")
    expect(negotiateCoding("*")).toBe("br")
    expect(negotiateCoding("*;q=0.3, br;q=0")).toBe("gzip")
    expect(negotiateCoding("identity;q=1, gzip;q=0.5")).toBe("identity")
    expect(negotiateCoding("deflate, compress")).toBe("identity")
    expect(negotiateCoding("br;q=0, gzip;q=0, identity;q=0")).toBe("identity")
    expect(negotiateCoding("GZIP;Q=0.9, Br;q=0.1")).toBe("gzip")
  })
})

describe.each(dialects)("compression through the real server [%s]", (dialect) => {
  const server = useServer(dialect, {
    manifest: {
      policyRules: [
        { id: "eea", match: { countries: ["DE", "FR"] }, model: "opt-in", categories: ["measurement", "marketing"] },
        { id: "rest", match: { default: true }, model: "opt-out", categories: ["measurement", "marketing"] }
      ],
      vendors
    }
  })

  it("serves /svc.js pre-compressed: gzip under a half of it, brotli smaller still, identical once decoded", async () => {
    const plain = await raw(`${server.url()}/svc.js`)
    const gzip = await raw(`${server.url()}/svc.js`, { "accept-encoding": "gzip" })
    const br = await raw(`${server.url()}/svc.js`, { "accept-encoding": "gzip, br" })
    expect([plain.status, gzip.status, br.status]).toEqual([200, 200, 200])
    expect(gzip.headers["content-encoding"]).toBe("gzip")
    expect(br.headers["content-encoding"]).toBe("br")
    // The bundle's size budget is the browser build's to keep (packages/browser/build.mjs); here,
    // that what is served is compressed.
    expect(gzip.wire.length).toBeLessThan(plain.wire.length / 2)
    expect(br.wire.length).toBeLessThan(gzip.wire.length)
    expect(Number(gzip.headers["content-length"])).toBe(gzip.wire.length)
    expect(decoded(gzip).equals(plain.wire)).toBe(true)
    expect(decoded(br).equals(plain.wire)).toBe(true)
    for (const response of [plain, gzip, br]) {
      expect(varies(response)).toContain("accept-encoding")
      expect(varies(response)).toContain("host") // the route's own Vary is kept
    }
    // one ETag per representation
    const tags = [plain, gzip, br].map((r) => r.headers.etag)
    expect(new Set(tags).size).toBe(3)
    expect(gzip.headers.etag).toBe(plain.headers.etag!.replace(/"$/, '-gzip"'))
  })

  it("answers 304 only for the ETag of the representation it would send", async () => {
    const url = `${server.url()}/svc.js`
    const plain = await raw(url)
    const gzip = await raw(url, { "accept-encoding": "gzip" })
    const again = await raw(url, { "accept-encoding": "gzip", "if-none-match": gzip.headers.etag! })
    expect(again.status).toBe(304)
    expect(again.headers.etag).toBe(gzip.headers.etag)
    expect(varies(again)).toContain("accept-encoding")
    expect(again.wire.length).toBe(0)
    // a gzip tag does not validate the brotli representation, nor the identity one
    const otherCoding = await raw(url, { "accept-encoding": "br", "if-none-match": gzip.headers.etag! })
    expect(otherCoding.status).toBe(200)
    expect(otherCoding.headers["content-encoding"]).toBe("br")
    expect((await raw(url, { "if-none-match": gzip.headers.etag! })).status).toBe(200)
    // the identity tag still validates identity, and weak comparison applies
    const identity304 = await raw(url, { "if-none-match": plain.headers.etag! })
    expect(identity304.status).toBe(304)
    expect(identity304.headers.etag).toBe(plain.headers.etag)
    expect(varies(identity304)).toContain("accept-encoding")
    expect((await raw(url, { "accept-encoding": "gzip", "if-none-match": `W/${gzip.headers.etag}` })).status).toBe(304)
  })

  it("HEAD answers the headers GET would, without a body", async () => {
    const url = `${server.url()}/spec.json`
    const get = await raw(url, { "accept-encoding": "br" })
    const head = await raw(url, { "accept-encoding": "br" }, "HEAD")
    expect(head.status).toBe(200)
    expect(head.wire.length).toBe(0)
    for (const name of ["content-encoding", "etag", "content-length", "vary", "content-type"]) {
      expect(head.headers[name], name).toBe(get.headers[name])
    }
    expect(Number(get.headers["content-length"])).toBe(get.wire.length)
  })

  it("compresses /spec.json and /manifest once per coding, with their own cache headers", async () => {
    const spec = await raw(`${server.url()}/spec.json`)
    const specGzip = await raw(`${server.url()}/spec.json`, { "accept-encoding": "gzip" })
    expect(specGzip.headers["content-encoding"]).toBe("gzip")
    expect(specGzip.wire.length).toBeLessThan(spec.wire.length / 4)
    expect(JSON.parse(decoded(specGzip).toString("utf8"))).toEqual(JSON.parse(spec.wire.toString("utf8")))
    expect(specGzip.headers["cache-control"]).toBe("no-cache")

    const manifest = await raw(`${server.url()}/manifest`)
    expect(manifest.wire.length).toBeGreaterThan(1024)
    const manifestBr = await raw(`${server.url()}/manifest`, { "accept-encoding": "br" })
    expect(manifestBr.headers["content-encoding"]).toBe("br")
    expect(manifestBr.headers["cache-control"]).toBe(manifest.headers["cache-control"])
    expect(manifestBr.headers.etag).toBe(manifest.headers.etag!.replace(/"$/, '-br"'))
    expect(decoded(manifestBr).equals(manifest.wire)).toBe(true)
    const revalidated = await raw(`${server.url()}/manifest`, {
      "accept-encoding": "br",
      "if-none-match": manifestBr.headers.etag!
    })
    expect(revalidated.status).toBe(304)
    expect((await raw(`${server.url()}/manifest`, { "if-none-match": manifest.headers.etag! })).status).toBe(304)
  })

  it("loads /docs and its reference UI in under 1 MB, the UI as an immutable, compressed script", async () => {
    const page = await raw(`${server.url()}/docs`, { "accept-encoding": "gzip" })
    expect(page.status).toBe(200)
    expect(page.headers["content-type"]).toContain("text/html")
    const html = decoded(page).toString("utf8")
    const src = /<script src="([^"]+)"><\/script>/.exec(html)?.[1]
    expect(src).toMatch(/^docs\/scalar\.js\?v=/)
    expect(html).toContain('"/subjects/{id}"') // the OpenAPI document travels inline
    for (const coding of ["gzip", "br"]) {
      const script = await raw(new URL(src!, `${server.url()}/docs`).href, { "accept-encoding": coding })
      expect(script.status).toBe(200)
      expect(script.headers["content-encoding"]).toBe(coding)
      expect(script.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
      expect(page.wire.length + script.wire.length).toBeLessThan(1024 * 1024)
    }
    const identity = await raw(`${server.url()}/docs/scalar.js`)
    expect(identity.wire.length).toBeGreaterThan(2 * 1024 * 1024)
  })

  it("compresses a dynamic answer above 1 KB and leaves small ones and /init alone", async () => {
    const body = cookieSave({
      vendorChoice: { grants: Object.fromEntries(vendors.map((v) => [v.id, true])), confirmedAt: Date.now() }
    })
    expect((await save(server, body)).status).toBe(200)
    const url = `${server.url()}/subjects/${body.subjectId}`
    const plain = await raw(url)
    expect(plain.wire.length).toBeGreaterThan(1024)
    const gzip = await raw(url, { "accept-encoding": "gzip;q=1, br;q=0.5" })
    expect(gzip.headers["content-encoding"]).toBe("gzip")
    expect(varies(gzip)).toContain("accept-encoding")
    expect(JSON.parse(decoded(gzip).toString("utf8"))).toEqual(JSON.parse(plain.wire.toString("utf8")))
    const none = await raw(url, { "accept-encoding": "br;q=0, gzip;q=0" })
    expect(none.headers["content-encoding"]).toBeUndefined()
    expect(none.wire.equals(plain.wire)).toBe(true)

    const status = await raw(`${server.url()}/status`, { "accept-encoding": "gzip" })
    expect(status.wire.length).toBeLessThan(1024)
    expect(status.headers["content-encoding"]).toBeUndefined()
    const init = await raw(`${server.url()}/init?country=DE`, { "accept-encoding": "gzip, br" })
    expect(init.status).toBe(200)
    expect(init.headers["content-encoding"]).toBeUndefined()
  })
})
