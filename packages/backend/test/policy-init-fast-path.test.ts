import { type InitFastPath, svcInstance, type SvcOptions } from "@svc/backend"
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

describe("the /init fast path itself", () => {
  const capture = async (extra: Partial<SvcOptions> = {}) => {
    let fastPath: InitFastPath | undefined
    const instance = svcInstance({ database: { dialect: "sqlite", url: ":memory:" }, ...options, ...extra }, {
      onInitFastPath: (fp) => {
        fastPath = fp
      }
    })
    await instance.handler(new Request("http://svc.example/status")) // builds the layer
    return { fastPath: fastPath!, dispose: instance.dispose }
  }

  it("answers a plain request and declines what the pipeline must answer", async () => {
    const { fastPath, dispose } = await capture()
    try {
      expect(fastPath).toBeTypeOf("function")
      const answer = await fastPath("country=DE", { origin: "https://shop.example" }, "203.0.113.9")
      expect(JSON.parse(answer!.body).policyResolution).toMatchObject({ status: "matched", policyId: "eu" })
      expect(answer!.headers).toMatchObject({
        "cache-control": "no-store",
        "access-control-allow-origin": "https://shop.example",
        "access-control-allow-credentials": "true"
      })
      expect(fastPath("country=DE&country=FR", {}, undefined)).toBeUndefined()
      expect(fastPath("journey=a%00b", {}, undefined)).toBeUndefined()
    } finally {
      await dispose()
    }
  })

  it("declines everything when every request is logged (the edge writes the event)", async () => {
    const { fastPath, dispose } = await capture({ observability: { requests: "all" } })
    try {
      expect(fastPath("country=DE", {}, undefined)).toBeUndefined()
    } finally {
      await dispose()
    }
  })
})
