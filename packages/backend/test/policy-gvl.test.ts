import { HttpLayerRouter } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { svcInstance } from "@svc/backend"
import { Chunk, Context, Duration, Effect, Layer, TestClock, TestContext, TestServices } from "effect"
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll } from "vitest"
import { GVL_FIXTURE, manifest } from "./support/policy-manifest.js"
import { useServer } from "./support/server.js"

const fixture = JSON.parse(readFileSync(GVL_FIXTURE, "utf8"))
const vendorIds = (body: { gvl?: { vendors: Record<string, { id: number }> } }) =>
  body.gvl === undefined ? undefined : Object.values(body.gvl.vendors).map((v) => v.id).sort((a, b) => a - b)

/** A local stand-in for a GVL endpoint: no test touches the network. */
const gvlEndpoint = () => {
  let server: Server | undefined
  const state = { body: fixture as unknown, status: 200, requests: 0 }
  beforeAll(async () => {
    server = createServer((_req, res) => {
      state.requests++
      res.writeHead(state.status, { "content-type": "application/json" })
      res.end(typeof state.body === "string" ? state.body : JSON.stringify(state.body))
    })
    await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done))
  })
  afterAll(async () => {
    server?.closeAllConnections()
    await new Promise((done) => server?.close(done))
  })
  return {
    state,
    url: () => `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v3/vendor-list.json?key=secret`
  }
}

describe("GVL from a file", () => {
  const server = useServer("sqlite", { manifest, gvl: { file: GVL_FIXTURE } })
  const allowed = useServer("sqlite", { manifest, gvl: { file: GVL_FIXTURE, vendorIds: [2, 8, 755, 999] } })
  const declined = useServer("sqlite", { manifest, gvl: { enabled: false, file: GVL_FIXTURE } })
  const absent = useServer("sqlite", { manifest })
  const init = async (
    s: typeof server,
    query: string,
    headers: Record<string, string> = {}
  ) => (await (await s.fetch(`/init${query}`, { headers })).json())

  it("carries the list, in its v3 shape, on a matched IAB rule only", async () => {
    const body = await init(server, "?country=FR")
    expect(body.policyResolution.model).toBe("iab")
    expect(body.gvl.vendorListVersion).toBe(120)
    expect(body.gvl.gvlSpecificationVersion).toBe(3)
    expect(body.gvl.purposes["1"].name).toBe("Store and/or access information on a device")
    expect(body.gvl.specialFeatures).toEqual(fixture.specialFeatures)
    expect(body.gvl.vendors["2"]).toEqual(fixture.vendors["2"])
    expect(vendorIds(body)).toEqual([2, 8, 21, 90, 755])
    for (const query of ["?country=DE", "?country=JP", "", "?contract=2&country=FR"]) {
      expect(await init(server, query), query).not.toHaveProperty("gvl")
    }
  })

  it("intersects with gvl.vendorIds and with x-svc-vendors, which can shrink the list but never widen it", async () => {
    expect(vendorIds(await init(allowed, "?country=FR"))).toEqual([2, 8, 755])
    expect(vendorIds(await init(allowed, "?country=FR", { "x-svc-vendors": "8, 21, 755, 12345" }))).toEqual([8, 755])
    expect(vendorIds(await init(server, "?country=FR", { "x-svc-vendors": "21,2" }))).toEqual([2, 21])
    expect(vendorIds(await init(server, "?country=FR", { "x-svc-vendors": "4242" }))).toEqual([])
    // a header naming no usable id is ignored
    expect(vendorIds(await init(allowed, "?country=FR", { "x-svc-vendors": "abc, -1" }))).toEqual([2, 8, 755])
  })

  it("is absent when the gvl option is absent or declined", async () => {
    expect(await init(declined, "?country=FR")).not.toHaveProperty("gvl")
    expect(await init(absent, "?country=FR")).not.toHaveProperty("gvl")
  })
})

describe("GVL from an endpoint", () => {
  const endpoint = gvlEndpoint()
  // The instance runs on a TestClock: its refresh interval passes when the test says so, not on
  // real timers. The endpoint and the requests are real; only time is the test's.
  const INTERVAL = 3600
  let instance: ReturnType<typeof svcInstance> | undefined
  let web:
    | { readonly handler: (request: Request) => Promise<Response>; readonly dispose: () => Promise<void> }
    | undefined
  let clock: TestClock.TestClock | undefined
  beforeAll(() => {
    instance = svcInstance({
      database: { dialect: "sqlite", url: ":memory:" },
      manifest,
      gvl: { endpoint: endpoint.url(), refreshIntervalSeconds: INTERVAL }
    }, { migrate: true })
    const testClock = TestClock.live(TestClock.makeData(Date.now(), Chunk.empty())).pipe(
      Layer.provide(Layer.merge(TestServices.liveLayer(), TestServices.annotationsLayer())),
      Layer.provide(TestContext.LiveContext),
      Layer.tap((context) => Effect.sync(() => (clock = Context.get(context, TestClock.TestClock))))
    )
    web = HttpLayerRouter.toWebHandler(Layer.provide(instance.layer, testClock), { disableLogger: true })
  })
  afterAll(async () => {
    await web?.dispose()
    await instance?.dispose()
  })
  const init = async () => (await web!.handler(new Request("http://svc.example/init?country=FR"))).json()
  /** Moves the instance's clock by one refresh interval (the sleeping refresh wakes). */
  const nextInterval = () =>
    Effect.runPromise(TestClock.adjust(Duration.seconds(INTERVAL)).pipe(Effect.withClock(clock!)))

  it("loads at start, refreshes on its interval, and keeps the last good copy when the source fails", async () => {
    expect((await init()).gvl.vendorListVersion).toBe(120)
    expect(endpoint.state.requests).toBe(1)

    endpoint.state.body = { ...fixture, vendorListVersion: 121 }
    // Before the interval has passed, nothing is fetched again.
    expect((await init()).gvl.vendorListVersion).toBe(120)
    expect(endpoint.state.requests).toBe(1)
    await nextInterval()
    await expect.poll(async () => (await init()).gvl.vendorListVersion).toBe(121)
    expect(endpoint.state.requests).toBe(2)

    endpoint.state.status = 503
    for (const expected of [3, 4]) {
      await nextInterval()
      await expect.poll(() => endpoint.state.requests).toBe(expected)
    }
    expect((await init()).gvl.vendorListVersion).toBe(121)

    endpoint.state.status = 200
    endpoint.state.body = { not: "a vendor list" }
    for (const expected of [5, 6]) {
      await nextInterval()
      await expect.poll(() => endpoint.state.requests).toBe(expected)
    }
    expect((await init()).gvl.vendorListVersion).toBe(121)
  })
})

describe("GVL endpoint that is down at start", () => {
  const endpoint = gvlEndpoint()
  const options = { manifest, gvl: { endpoint: "" as string, timeoutMs: 500 } }
  beforeAll(() => {
    endpoint.state.status = 500
    options.gvl.endpoint = endpoint.url()
  })
  const server = useServer("sqlite", options)

  it("still serves /init, without a list", async () => {
    const response = await server.fetch("/init?country=FR")
    expect(response.status).toBe(200)
    const body = await response.json()
    expect(body.policyResolution.status).toBe("matched")
    expect(body).not.toHaveProperty("gvl")
  })
})
