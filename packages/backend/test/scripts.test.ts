import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { useServer } from "./support/server.js"

const dir = mkdtempSync(join(tmpdir(), "svc-bundles-"))
const fullBundle = join(dir, "full.js")
writeFileSync(fullBundle, "console.log('full bundle')\n")

/** The JSON the prelude line embeds before the bundle source. */
const embedded = (body: string) => {
  const match = /^;window\.__SVC_EMBEDDED__=(.*);\n/.exec(body)
  expect(match, "prelude line").not.toBeNull()
  return JSON.parse(match![1]!) as { backendURL: string; config: Record<string, unknown> }
}

describe("script routes", () => {
  const server = useServer("sqlite", {
    script: {
      config: { theme: "dark", note: "</script><script>alert(1)</script>\u2028" },
      bundles: { full: fullBundle, headless: join(dir, "missing.js") }
    }
  })

  it("serves the bundle after one line of embedded defaults, with the backend URL from the request", async () => {
    const response = await server.fetch("/svc.js")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/javascript; charset=utf-8")
    const body = await response.text()
    expect(body.endsWith("console.log('full bundle')\n")).toBe(true)
    expect(embedded(body)).toEqual({
      backendURL: server.url(),
      config: { theme: "dark", note: "</script><script>alert(1)</script>\u2028" }
    })
  })

  it("escapes the embedded JSON so it cannot close a script element or break a string", async () => {
    const body = await (await server.fetch("/svc.js")).text()
    const prelude = body.slice(0, body.indexOf("\n"))
    expect(prelude).not.toMatch(/<\/script/i)
    expect(prelude).not.toContain("\u2028")
    expect(prelude).toContain("\\u003c/script\\u003e")
  })

  it("takes https from X-Forwarded-Proto but never the host from X-Forwarded-Host", async () => {
    const host = new URL(server.url()).host
    const body = await (await server.fetch("/svc.js", {
      headers: { "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" }
    })).text()
    expect(embedded(body).backendURL).toBe(`https://${host}`)
    const downgrade = await (await server.fetch("/svc.js", { headers: { "x-forwarded-proto": "gopher" } })).text()
    expect(embedded(downgrade).backendURL).toBe(`http://${host}`)
  })

  it("sends an ETag and cache headers, and answers a matching If-None-Match with 304", async () => {
    const first = await server.fetch("/svc.js")
    const etag = first.headers.get("etag")
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    expect(first.headers.get("cache-control")).toContain("public")
    const again = await server.fetch("/svc.js", { headers: { "if-none-match": etag! } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe("")
  })

  it("answers 503 when a bundle file is missing", async () => {
    const response = await server.fetch("/svc.headless.js")
    expect(response.status).toBe(503)
    expect((await response.json()).cause.code).toBe("SCRIPT_UNAVAILABLE")
  })
})

describe("script routes under a basePath and with custom paths", () => {
  const server = useServer("sqlite", {
    basePath: "/consent",
    script: { path: "/banner.js", bundles: { full: fullBundle } }
  })

  it("embeds origin + basePath, so the bundle calls <prefix>/init without repeating the prefix", async () => {
    const response = await server.fetch("/consent/banner.js")
    expect(response.status).toBe(200)
    expect(embedded(await response.text()).backendURL).toBe(`${server.url()}/consent`)
    expect((await server.fetch("/consent/svc.js")).status).toBe(404)
  })
})

describe("script routes with an explicit backendURL", () => {
  const server = useServer("sqlite", {
    script: { backendURL: "https://cmp.example.com/svc/", bundles: { full: fullBundle } }
  })

  it("embeds the configured URL without its trailing slash", async () => {
    expect(embedded(await (await server.fetch("/svc.js")).text()).backendURL).toBe("https://cmp.example.com/svc")
  })
})
