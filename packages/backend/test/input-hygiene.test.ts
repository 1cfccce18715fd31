// Input hygiene (docs/adr/0017-input-hygiene.md): control characters, surrounding white space, partial
// preferences, reserved vendor ids and readable error messages, the same on every dialect.
import { HttpLayerRouter, type HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { svcInstance } from "@svc/backend"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, afterEach, beforeAll, beforeEach, vi } from "vitest"
import { bearer, call, consentRows, cookieSave, newSubjectId, save, subjectRow } from "./support/consent-saves.js"
import { dialects, type FreshDatabase, freshDatabase } from "./support/dialects.js"
import { manifest } from "./support/policy-manifest.js"
import { useServer } from "./support/server.js"

const API_KEY = "hygiene-key-0123456789abcdef-0123456"
const NUL = "a\u0000b"
const key = bearer(API_KEY)

const expectInvalid = (
  answer: { status: number; body: { cause?: { code?: string }; message?: string } },
  label: string
) => {
  expect(answer.status, label).toBe(400)
  expect(answer.body.cause?.code, label).toBe("INVALID_REQUEST")
}

describe.each(dialects)("input hygiene [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY], manifest })

  const publish = (type: string, body: unknown) => call(server, "PUT", `/legal-documents/${type}/current`, body, key)
  const get = (path: string, headers: Record<string, string> = key) => call(server, "GET", path, undefined, headers)

  describe("control characters", () => {
    it("a NUL in any save field is a 400 INVALID_REQUEST and writes nothing", async () => {
      const cases: ReadonlyArray<[string, Record<string, unknown>]> = [
        ["domain", { domain: NUL }],
        ["journey.id", { journey: { id: NUL } }],
        ["journey.scope", { journey: { scope: NUL } }],
        ["experiment.id", { experiment: { id: NUL, arm: "A" } }],
        ["experiment.arm", { experiment: { id: "exp", arm: NUL } }],
        ["externalSubjectId", { externalSubjectId: NUL }],
        ["identityProvider", { externalSubjectId: "u1", identityProvider: NUL }],
        ["policySnapshotToken", { policySnapshotToken: NUL }],
        ["vendorChoice.grants", { vendorChoice: { grants: { [NUL]: true }, confirmedAt: Date.now() } }],
        ["tab in domain", { domain: "a\tb" }],
        ["newline in journey", { journey: { id: "a\nb" } }]
      ]
      for (const [label, overrides] of cases) {
        const body = cookieSave(overrides)
        expectInvalid(await save(server, body, key), label)
        expect(await subjectRow(server, body.subjectId as string), label).toBeUndefined()
      }
      const legal = { type: "privacy_policy", domain: "example.com", subjectId: newSubjectId(), givenAt: Date.now() }
      for (const field of ["policyHash", "policyId", "documentSnapshotToken"]) {
        expectInvalid(await save(server, { ...legal, [field]: NUL }, key), field)
        expect(await subjectRow(server, legal.subjectId), field).toBeUndefined()
      }
    })

    it("a NUL in a legal release, an identity link, a session report or a url or path parameter is a 400", async () => {
      expectInvalid(
        await publish("privacy_policy", { version: NUL, hash: "h", effectiveDate: "2026-01-01" }),
        "version"
      )
      expectInvalid(await publish("privacy_policy", { version: "1", hash: NUL, effectiveDate: "2026-01-01" }), "hash")
      const subjectId = newSubjectId()
      expect((await save(server, cookieSave({ subjectId }), key)).status).toBe(200)
      expectInvalid(await call(server, "PATCH", `/subjects/${subjectId}`, { externalId: NUL }, key), "PATCH externalId")
      expectInvalid(await get("/subjects?externalId=a%00b"), "/subjects?externalId")
      expectInvalid(await get(`/subjects/${subjectId}?type=a%00b`), "/subjects/:id?type")
      expectInvalid(await get("/consents/check?externalId=a%00b&type=dpa"), "check externalId")
      expectInvalid(await get("/consents/check?externalId=u&type=a%00b"), "check type")
      expectInvalid(await get("/experiments/a%00b/summary"), "experiment path id")
      expectInvalid(await get("/experiments/exp/summary?domain=a%00b"), "experiment domain")
      expectInvalid(await get("/experiments/exp/summary?from=a%00b"), "experiment from")
      const report = {
        source: "route",
        revision: NUL,
        resolution: "no-match",
        policy: null,
        country: "DE",
        region: null,
        language: "de",
        gpc: false
      }
      expectInvalid(await call(server, "POST", "/sessions", report, { "x-svc-version": "1" }), "session revision")
      expectInvalid(
        await call(server, "POST", "/sessions", { ...report, revision: "r", journey: { id: NUL } }, {
          "x-svc-version": "1"
        }),
        "session journey"
      )
    })

    it("/init answers 400 rather than echo a NUL; a NUL inside an encoded experiment is skipped", async () => {
      for (const query of ["journey=a%00b", "svcJourney=a%00b", "journeyScope=a%00b", "stored=a%00b", "country=D%00E",
        "v=1%00"])
      {
        expectInvalid(await get(`/init?${query}`, {}), query)
      }
      const answer = await get("/init?country=DE&experiment=a%2500b%3DA", {})
      expect(answer.status).toBe(200)
      expect(answer.body.experiment).toBeNull()
      const header = await get("/init?country=DE", { "x-svc-experiment": "exp=A%00" })
      expect(header.body.experiment).toBeNull()
      expect((await get("/init?country=DE&experiment=exp%3DA", {})).body.experiment).toEqual({ id: "exp", arm: "A" })
    })
  })

  describe("surrounding white space", () => {
    it('"h1" and "h1 " are not confused: the second is refused with 400', async () => {
      expect((await publish("dpa", { version: "v1", hash: "h1", effectiveDate: "2026-01-01" })).status).toBe(200)
      expectInvalid(await publish("dpa", { version: "v1", hash: "h1 ", effectiveDate: "2026-01-01" }), "hash")
      expectInvalid(await publish("dpa", { version: "v1 ", hash: "h2", effectiveDate: "2026-01-01" }), "version")
      expectInvalid(
        await publish("dpa", { version: " v1", hash: "h2", effectiveDate: "2026-01-01" }),
        "leading version"
      )
      const legal = () => ({ type: "dpa", domain: "example.com", subjectId: newSubjectId(), givenAt: Date.now() })
      const exact = legal()
      const saved = await save(server, { ...exact, policyHash: "h1" }, key)
      expect(saved.status).toBe(200)
      const padded = legal()
      expectInvalid(await save(server, { ...padded, policyHash: "h1 " }, key), "policyHash")
      expect(await subjectRow(server, padded.subjectId)).toBeUndefined()
      const view = await get(`/subjects/${exact.subjectId}`, {})
      expect(view.body.consents[0].policyHash).toBe("h1")
      expectInvalid(await save(server, { ...legal(), policyId: `${view.body.consents[0].policyId} ` }, key), "policyId")
    })

    it("experiment ids and arms, journey fields and the experiment path id refuse surrounding white space", async () => {
      for (const [label, overrides] of [
        ["experiment.id", { experiment: { id: "exp ", arm: "A" } }],
        ["experiment.arm", { experiment: { id: "exp", arm: " A" } }],
        ["journey.id", { journey: { id: "j1 " } }],
        ["journey.stored", { journey: { stored: " 1" } }],
        ["domain", { domain: "example.com " }],
        ["externalSubjectId", { externalSubjectId: "user " }],
        ["vendor id", { vendorChoice: { grants: { "analytics ": true }, confirmedAt: Date.now() } }]
      ] as const) {
        expectInvalid(await save(server, cookieSave(overrides), key), label)
      }
      expectInvalid(await get("/experiments/exp%20/summary"), "path id")
      expectInvalid(await get("/experiments/exp/summary?domain=example.com%20"), "summary domain")
      expect((await get("/experiments/exp/summary")).status).toBe(200)
      expectInvalid(await get("/init?journey=j1%20", {}), "/init journey")
      expect((await get("/init?country=DE&experiment=exp%3DA%2520", {})).body.experiment).toBeNull()
      const journey = await get("/init?journey=j1&journeyScope=page", {})
      expect(journey.body.journey).toEqual({ id: "j1", scope: "page" })
    })
  })

  describe("partial preferences", () => {
    it("a save names only the categories offered; receipts follow them and the act digest is stable", async () => {
      const subjectId = newSubjectId()
      const givenAt = Date.now()
      const body = cookieSave({ subjectId, givenAt, preferences: { measurement: true, marketing: false } })
      const first = await save(server, body, key)
      expect(first.status).toBe(200)
      expect(first.body.appliedPreferences).toEqual({ necessary: true, measurement: true, marketing: false })
      const rows = await consentRows(server, subjectId)
      expect(Object.keys(JSON.parse(rows[0]!.receipts as string)).sort()).toEqual(["marketing", "measurement"])
      // The same act, with necessary spelled out and keys in another order: the same record.
      const again = await save(server, {
        ...body,
        preferences: { marketing: false, necessary: true, measurement: true }
      }, key)
      expect(again.status).toBe(200)
      expect(again.body.consentId).toBe(first.body.consentId)
      const view = await get(`/subjects/${subjectId}`, {})
      expect(view.body.consents[0].preferences).toEqual({ necessary: true, measurement: true, marketing: false })
      expect(Object.keys(view.body.consents[0].receipts).sort()).toEqual(["marketing", "measurement"])
      expect(Object.keys(view.body.subjectChoice.categories).sort()).toEqual(["marketing", "measurement"])
    })

    it("works through the derived client", () =>
      Effect.gen(function*() {
        const client = yield* server.clientWithKey(API_KEY)
        const answer = yield* client.subjects.create({
          payload: {
            type: "cookie_banner",
            domain: "example.com",
            subjectId: newSubjectId() as never,
            givenAt: new Date(),
            preferences: { measurement: false }
          }
        })
        expect(answer.appliedPreferences).toEqual({ necessary: true, measurement: false })
      }).pipe(Effect.runPromise))

    it("applies necessary: false as true, and refuses unknown categories with 400", async () => {
      const forced = await save(server, cookieSave({ preferences: { necessary: false, marketing: true } }), key)
      expect(forced.status).toBe(200)
      expect(forced.body.appliedPreferences).toEqual({ necessary: true, marketing: true })
      for (const [label, preferences] of [
        ["unknown category", { measurement: true, analytics: true }],
        ["not a boolean", { measurement: "yes" }]
      ] as const) {
        const body = cookieSave({ preferences })
        const answer = await save(server, body, key)
        expectInvalid(answer, label)
        expect(answer.body.message, label).toContain("preferences")
        expect(await subjectRow(server, body.subjectId as string), label).toBeUndefined()
      }
    })
  })

  describe("reserved vendor ids", () => {
    it("a grant keyed __proto__, constructor or prototype is refused, never silently dropped", async () => {
      for (const id of ["__proto__", "constructor", "prototype"]) {
        const body = cookieSave()
        const text = JSON.stringify(body).slice(0, -1) +
          `,"vendorChoice":{"grants":{"${id}":true,"analytics":true},"confirmedAt":${Date.now()}}}`
        const response = await server.fetch("/subjects", {
          method: "POST",
          headers: { "content-type": "application/json", ...key },
          body: text
        })
        expect(response.status, id).toBe(400)
        const error = await response.json()
        expect(error.cause.code).toBe("INVALID_REQUEST")
        expect(error.message, id).toContain(id)
        expect(await subjectRow(server, body.subjectId as string), id).toBeUndefined()
      }
    })
  })

  describe("error messages", () => {
    it("drop the Expected undefined alternative of an optional field and cut echoed values", async () => {
      const answer = await save(server, cookieSave({ preferences: { measurement: 1 } }), key)
      expectInvalid(answer, "preferences")
      expect(answer.body.message).toContain("preferences.measurement: Expected boolean")
      expect(answer.body.message).not.toContain("Expected undefined")
      const long = await save(server, cookieSave({ domain: "x".repeat(5000), journey: { id: "y".repeat(5000) } }), key)
      expectInvalid(long, "long")
      expect(long.body.message).not.toContain("x".repeat(81))
      expect(long.body.message).not.toContain("y".repeat(81))
      expect(long.body.message.length).toBeLessThan(600)
      const key5000 = await save(server, cookieSave({ preferences: { ["z".repeat(5000)]: true } }), key)
      expectInvalid(key5000, "long key")
      expect(key5000.body.message).not.toContain("z".repeat(81))
    })
  })
})

/** The captured console, and a server whose loggers show Debug lines (JSON format). */
describe.each(dialects)("the /init session report is logged at Debug [%s]", (dialect) => {
  let db: FreshDatabase
  let url = ""
  let dispose: () => Promise<void> = async () => {}
  const reports: Array<unknown> = []
  beforeAll(async () => {
    db = await freshDatabase(dialect)
    const instance = svcInstance({
      manifest,
      database: db.database,
      observability: { requests: "none", format: "json" },
      sessions: { onReport: (r) => void reports.push(r) }
    }, { migrate: true })
    const server = createServer()
    const served = HttpLayerRouter.serve(instance.standaloneLayer, {
      disableLogger: true,
      disableListenLog: true
    }) as Layer.Layer<
      never,
      unknown,
      HttpServer.HttpServer
    >
    const runtime = ManagedRuntime.make(served.pipe(
      Layer.provide(NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" })),
      Layer.provide(instance.logger),
      Layer.provide(Logger.minimumLogLevel(LogLevel.Debug))
    ))
    await runtime.runtime()
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    dispose = async () => {
      await runtime.dispose()
      await instance.dispose()
    }
  })
  afterAll(async () => {
    await dispose()
    await db?.drop()
  })

  let lines: Array<string> = []
  let restore = () => {}
  beforeEach(() => {
    lines = []
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
        lines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "))
      })
    )
    restore = () => spies.forEach((spy) => spy.mockRestore())
  })
  afterEach(() => restore())

  const sessionLines = () =>
    lines.flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as {
          message?: unknown
          logLevel?: string
          annotations?: Record<string, unknown>
        }
        return parsed.message === "session report" ? [{ level: parsed.logLevel, ...parsed.annotations }] : []
      } catch {
        return []
      }
    })

  it("one line per report, with the non-personal fields only", async () => {
    const response = await fetch(`${url}/init?country=DE&gpc=1&journey=j1`, {
      headers: { "accept-language": "de", "user-agent": "Visitor/9.9", "x-forwarded-for": "198.51.100.23" }
    })
    const body = await response.json() as { revision: string }
    await expect.poll(() => reports.length).toBeGreaterThan(0)
    const logged = sessionLines()
    expect(logged).toEqual([{
      level: "DEBUG",
      "session.source": "init",
      "session.revision": body.revision,
      "session.resolution": "matched",
      "session.policyId": "eu",
      "session.country": "DE",
      "session.region": null,
      "session.language": "de",
      "session.gpc": true,
      "session.journeyId": "j1"
    }])
    expect(lines.join("\n")).not.toContain("Visitor/9.9")
    expect(lines.join("\n")).not.toContain("198.51.100")
    // Not a page view: no report, no line.
    lines.length = 0
    await fetch(`${url}/init?country=DE`, { method: "HEAD" })
    expect(sessionLines()).toEqual([])
  })
})

describe("the /init session report is not logged at the default level", () => {
  const server = useServer("sqlite", { manifest, observability: { requests: "none", format: "json" } })
  it("writes no line", async () => {
    const lines: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) =>
      void lines.push(args.map(String).join(" "))
    )
    try {
      expect((await server.fetch("/init?country=DE")).status).toBe(200)
    } finally {
      spy.mockRestore()
    }
    expect(lines.filter((line) => line.includes("session report"))).toEqual([])
  })
})
