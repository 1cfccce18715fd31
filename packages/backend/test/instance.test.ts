import { HttpLayerRouter, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { svcInstance } from "@svc/backend"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"

describe("svcInstance().handler (web-standard Request/Response)", () => {
  it("serves routes, strips basePath and enforces the body limit on chunked bodies", async () => {
    const instance = svcInstance({
      database: { dialect: "sqlite", url: ":memory:" },
      basePath: "/svc",
      version: "1.2.3"
    }, {
      migrate: true
    })
    try {
      const status = await instance.handler(new Request("http://host.example/svc/status"))
      expect(status.status).toBe(200)
      expect((await status.json()).version).toBe("1.2.3")
      const chunked = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 200; i++) controller.enqueue(new Uint8Array(1024))
          controller.close()
        }
      })
      const big = await instance.handler(
        new Request("http://host.example/svc/subjects", {
          method: "POST",
          body: chunked,
          headers: { "content-type": "application/json" },
          duplex: "half"
        } as RequestInit)
      )
      expect(big.status).toBe(413)
      expect((await big.json()).cause.code).toBe("PAYLOAD_TOO_LARGE")
    } finally {
      await instance.dispose()
    }
  })
})

describe("svcInstance().handler end to end", () => {
  it("resolves /init, records a save and reads it back, with CORS for a trusted origin", async () => {
    const instance = svcInstance({
      database: { dialect: "sqlite", url: ":memory:" },
      trustedOrigins: ["shop.example"],
      manifest: {
        policyRules: [{ id: "eu", match: { countries: ["DE"] }, model: "opt-in", categories: ["marketing"] }]
      }
    }, { migrate: true })
    try {
      const init = await instance.handler(
        new Request("http://svc.example/init?country=DE", { headers: { origin: "https://shop.example" } })
      )
      expect(init.status).toBe(200)
      expect(init.headers.get("access-control-allow-origin")).toBe("https://shop.example")
      const body = await init.json()
      expect(body.policyResolution).toMatchObject({ status: "matched", policyId: "eu" })
      const subjectId = "sub_handler0123456789"
      const saved = await instance.handler(
        new Request("http://svc.example/subjects", {
          method: "POST",
          headers: { "content-type": "application/json", origin: "https://shop.example" },
          body: JSON.stringify({
            type: "cookie_banner",
            domain: "shop.example",
            subjectId,
            givenAt: 1_760_000_000_000,
            preferences: { marketing: true }
          })
        })
      )
      expect(saved.status).toBe(200)
      const read = await instance.handler(new Request(`http://svc.example/subjects/${subjectId}`))
      expect(read.status).toBe(200)
      expect((await read.json()).subjectChoice.categories.marketing.value).toBe(true)
    } finally {
      await instance.dispose()
    }
  })
})

describe("svcInstance().layer composed into an Effect app", () => {
  it("serves next to the host application's own routes on one HttpLayerRouter", async () => {
    const instance = svcInstance({ database: { dialect: "sqlite", url: ":memory:" }, basePath: "/consent" }, {
      migrate: true
    })
    const hostRoute = HttpLayerRouter.add(
      "GET",
      "/hello",
      Effect.succeed(HttpServerResponse.text("hello from the host"))
    )
    const server = createServer()
    const app = HttpLayerRouter.serve(Layer.mergeAll(instance.layer, hostRoute), {
      disableLogger: true,
      disableListenLog: true
    }).pipe(
      Layer.provide(NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" }))
    ) as Layer.Layer<never, unknown>
    const { ManagedRuntime } = await import("effect")
    const runtime = ManagedRuntime.make(app)
    try {
      await runtime.runtime()
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const status = await fetch(`${base}/consent/status`)
      expect(status.status).toBe(200)
      expect((await status.json()).status).toBe("ok")
      // The host's own route is untouched by svc's mount prefix, CORS and error handling.
      const hello = await fetch(`${base}/hello`, { headers: { origin: "https://elsewhere.example" } })
      expect(hello.status).toBe(200)
      expect(await hello.text()).toBe("hello from the host")
      expect(hello.headers.get("x-request-id")).toBeNull()
    } finally {
      await runtime.dispose()
    }
  })
})
