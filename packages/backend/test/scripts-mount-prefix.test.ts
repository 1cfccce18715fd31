// Spec, script routes: with `basePath` omitted, the bundle's `backendURL` comes from the request
// path. A host app that mounts svc under its own router prefix without telling it (no basePath)
// gets a bundle whose calls go to that prefix, not to the origin's root.
import { HttpLayerRouter } from "@effect/platform"
import { svcInstance } from "@svc/backend"
import { Effect, Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "svc-bundles-"))
const fullBundle = join(dir, "full.js")
writeFileSync(fullBundle, "console.log('full bundle')\n")
const headlessBundle = join(dir, "headless.js")
writeFileSync(headlessBundle, "console.log('headless bundle')\n")

const embeddedBackendUrl = async (response: Response): Promise<string> => {
  expect(response.status).toBe(200)
  const match = /^;window\.__SVC_EMBEDDED__=(.*);\n/.exec(await response.text())
  expect(match, "prelude line").not.toBeNull()
  return (JSON.parse(match![1]!) as { backendURL: string }).backendURL
}

const mounted = (prefix: string | undefined, options: { readonly basePath?: string } = {}) => {
  const instance = svcInstance({
    database: { dialect: "sqlite", url: ":memory:" },
    ...options,
    script: { bundles: { full: fullBundle, headless: headlessBundle }, headlessPath: "/lib/headless.js" }
  }, { migrate: true })
  const host = prefix === undefined
    ? Layer.empty
    : Layer.effect(
      HttpLayerRouter.HttpRouter,
      Effect.map(HttpLayerRouter.HttpRouter, (router) => router.prefixed(prefix))
    )
  const web = HttpLayerRouter.toWebHandler(Layer.provide(instance.layer, host), { disableLogger: true })
  return {
    get: (path: string) => web.handler(new Request(`http://shop.example${path}`)),
    dispose: async () => {
      await web.dispose()
      await instance.dispose()
    }
  }
}

describe("script backendURL from the request path when basePath is omitted", () => {
  const atConsent = mounted("/consent")
  const atRoot = mounted(undefined)
  const withBasePath = mounted(undefined, { basePath: "/api/cmp" })
  afterAll(async () => {
    await Promise.all([atConsent.dispose(), atRoot.dispose(), withBasePath.dispose()])
  })

  it("a host router prefix the instance was not told of becomes the bundle's backend path", async () => {
    expect(await embeddedBackendUrl(await atConsent.get("/consent/svc.js"))).toBe("http://shop.example/consent")
    // Each route strips its own configured path, also one with several segments.
    expect(await embeddedBackendUrl(await atConsent.get("/consent/lib/headless.js"))).toBe(
      "http://shop.example/consent"
    )
    // The bundle's calls then reach svc under that prefix.
    const status = await atConsent.get("/consent/status")
    expect(status.status).toBe(200)
  })

  it("mounted at the root, the backend URL is the origin alone", async () => {
    expect(await embeddedBackendUrl(await atRoot.get("/svc.js"))).toBe("http://shop.example")
    expect(await embeddedBackendUrl(await atRoot.get("/lib/headless.js"))).toBe("http://shop.example")
  })

  it("with basePath set, the bundle embeds origin + basePath", async () => {
    expect(await embeddedBackendUrl(await withBasePath.get("/api/cmp/svc.js"))).toBe("http://shop.example/api/cmp")
  })

  it("serves each prefix its own bundle body and ETag", async () => {
    const a = await atConsent.get("/consent/svc.js")
    const b = await atRoot.get("/svc.js")
    expect(a.headers.get("etag")).not.toBe(b.headers.get("etag"))
  })
})
