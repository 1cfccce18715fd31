import { HttpLayerRouter } from "@effect/platform"
import { InitFastPath, svcInstance, type SvcOptions } from "@svc/backend"
import { HashMap, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { describe, expect, it } from "vitest"
import { useServer } from "./support/server.js"

const categories = ["measurement", "marketing", "functionality", "experience"] as const
const options = {
  trustedOrigins: ["shop.example"],
  manifest: {
    policyRules: [
      {
        id: "ca",
        match: { regions: ["US-CA"] },
        model: "opt-out" as const,
        categories,
        gpcDenies: ["marketing" as const]
      },
      { id: "eu", match: { countries: ["DE", "FR"] }, model: "opt-in" as const, categories },
      { id: "rest", match: { default: true as const }, model: "opt-out" as const, categories }
    ]
  }
}

/** Each request, and the path of the fast-path server that must answer it (it declines what does not decode). */
const requests: ReadonlyArray<readonly [string, Record<string, string>, "fast path" | "pipeline"]> = [
  ["/init?country=DE", {}, "fast path"],
  ["/init?v=3.1.0&contract=1&journey=jrn_1&journeyScope=page&stored=1", { "accept-language": "fr-FR,fr;q=0.9" },
    "fast path"],
  ["/init?country=US&region=CA&gpc=1", { origin: "https://shop.example" }, "fast path"],
  ["/init", { "cf-ipcountry": "FR", origin: "https://elsewhere.example", "sec-gpc": "1" }, "fast path"],
  ["/init?svcJourney=old&experiment=banner%3Db", { "x-svc-country": "US", "x-svc-region": "US-CA" }, "fast path"],
  ["/init?contract=2", {}, "fast path"],
  ["/init?country=DE&country=FR", {}, "pipeline"],
  ["/init?journey=a%00b", {}, "pipeline"],
  ["/init?country=DE", { "sec-purpose": "prefetch", "x-request-id": "req-42" }, "fast path"],
  // located by the client IP in the IP database (a German IPv4 and IPv6 address in the built-in data)
  ["/init", { "x-forwarded-for": "80.133.1.1" }, "fast path"],
  ["/init?region=BY", { "x-forwarded-for": "2003:e0:1::1, 10.0.0.1" }, "fast path"]
]

const comparable = async (response: Response) => {
  const headers = Object.fromEntries(
    ["content-type", "cache-control", "vary", "access-control-allow-origin", "access-control-allow-credentials",
      "access-control-expose-headers"]
      .map((name) => [name, response.headers.get(name)])
  )
  return { status: response.status, headers, body: await response.json() }
}

// The bundled server answers plain GET /init through a fast path in front of Effect's HTTP
// pipeline; `initFastPath: false` sends every request through the pipeline. Both must answer alike,
// at the root and under a mount prefix with every origin trusted (CORS answers differ there).
const configurations = [
  ["at the root", options],
  ["under a basePath, every origin trusted", { ...options, basePath: "/consent/", trustedOrigins: ["*"] }]
] as const

describe.each(configurations)("GET /init: fast path and pipeline answer alike (%s)", (_, configuration) => {
  const fast = useServer("sqlite", configuration)
  const pipeline = useServer("sqlite", configuration, { initFastPath: false })
  const prefix = "basePath" in configuration ? "/consent" : ""

  it.each(requests)("%s (%o) by the %s", async (path, headers, answeredBy) => {
    const before = fast.initFastPathAnswers()
    const [a, b] = await Promise.all([fast.fetch(prefix + path, { headers }),
      pipeline.fetch(prefix + path, { headers })])
    expect(await comparable(a)).toEqual(await comparable(b))
    // which path answered: the fast path only on the server that has it, and only what it takes
    expect(fast.initFastPathAnswers() - before).toBe(answeredBy === "fast path" ? 1 : 0)
    expect(pipeline.initFastPathAnswers()).toBe(0)
    if (headers["x-request-id"] !== undefined) expect(a.headers.get("x-request-id")).toBe(headers["x-request-id"])
    else expect(a.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
  })
})

/** One log line as the capturing logger saw it. */
interface Line {
  readonly level: string
  readonly message: unknown
  readonly annotations: Record<string, unknown>
}

/**
 * The instance's `InitFastPath` service, built from `serverLayer` (as the bundled server builds
 * it) with a logger that captures every line, down to debug.
 */
const withFastPath = async (
  extra: Partial<SvcOptions>,
  use: (fastPath: InitFastPath["Type"], lines: Array<Line>) => Promise<void>
) => {
  const lines: Array<Line> = []
  const capture = Logger.make(({ annotations, logLevel, message }) => {
    lines.push({ level: logLevel.label, message, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
  })
  const instance = svcInstance({ database: { dialect: "sqlite", url: ":memory:" }, ...options, ...extra })
  const layer = instance.serverLayer.pipe(
    Layer.provide(HttpLayerRouter.layer),
    Layer.provide(Logger.replace(Logger.defaultLogger, capture)),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Debug))
  )
  const runtime = ManagedRuntime.make(layer)
  try {
    await use(await runtime.runPromise(InitFastPath), lines)
  } finally {
    await runtime.dispose()
  }
}

describe("the /init fast path itself", () => {
  it("answers a plain request with the edge's headers", () =>
    withFastPath({}, async (fastPath) => {
      const answer = await fastPath.answer!("country=DE", { origin: "https://shop.example" }, "203.0.113.9")
      expect(answer!.status).toBe(200)
      expect(JSON.parse(answer!.body).policyResolution).toMatchObject({ status: "matched", policyId: "eu" })
      expect(answer!.headers).toMatchObject({
        "cache-control": "no-store",
        "access-control-allow-origin": "https://shop.example",
        "access-control-allow-credentials": "true"
      })
      expect(answer!.headers.vary).toMatch(/, Origin$/)
      expect(fastPath.answered()).toBe(1)
    }))

  it("declines what does not decode, loudly: a debug line and a count, nothing run", () =>
    withFastPath({}, async (fastPath, lines) => {
      expect(fastPath.answer!("country=DE&country=FR", {}, undefined)).toBeUndefined()
      expect(fastPath.answer!("journey=a%00b", {}, undefined)).toBeUndefined()
      expect(fastPath.declined()).toBe(2)
      expect(fastPath.answered()).toBe(0)
      await new Promise((resolve) => setTimeout(resolve, 10)) // the log lines are forked
      const declines = lines.filter((line) => String(line.message).includes("fast path declined"))
      expect(declines.map((line) => line.level)).toEqual(["DEBUG", "DEBUG"])
    }))

  it("writes the request's wide log event like the edge when every request is logged", () =>
    withFastPath({ observability: { requests: "all" } }, async (fastPath, lines) => {
      const answer = await fastPath.answer!("country=DE&v=3.1.0", { "x-request-id": "req-7" }, undefined)
      expect(answer!.status).toBe(200)
      const logged = lines.filter((line) => line.message === "request" || String(line.message) === "request")
      expect(logged).toHaveLength(1)
      expect(logged[0]!.annotations).toMatchObject({
        method: "GET",
        route: "/init",
        status: 200,
        requestId: "req-7",
        "policy.resolution": "matched",
        "policy.id": "eu",
        "client.version": "3.1.0"
      })
    }))

  it("is not used with a rate limit on /init: the limiter sees every request", () =>
    withFastPath({ rateLimit: { init: { limit: 100 } } }, async (fastPath) => {
      expect(fastPath.answer).toBeUndefined()
    }))
})
