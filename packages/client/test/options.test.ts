import { afterEach, describe, expect, it, vi } from "vitest"
import { createSvcClient, SvcConfigurationError } from "../src/index.js"
import { configError } from "./support/config-error.js"

const paths = (error: SvcConfigurationError) => error.issues.map((issue) => issue.path.join("."))

describe("createSvcClient options", () => {
  afterEach(() => {
    vi.unstubAllGlobals()
    vi.unstubAllEnvs()
  })

  it("accepts a base URL alone, as a string or a URL", () => {
    expect(() => createSvcClient({ baseUrl: "https://consent.example.com/api" })).not.toThrow()
    expect(() => createSvcClient({ baseUrl: new URL("https://consent.example.com") })).not.toThrow()
  })

  it("requires baseUrl, and refuses a query string, a fragment, credentials and other schemes", () => {
    expect(paths(configError({}))).toEqual(["baseUrl"])
    expect(configError({ baseUrl: "https://x.example/api?tenant=a" }).issues[0]?.message).toMatch(/query string/)
    expect(configError({ baseUrl: "https://x.example/api?" }).issues[0]?.message).toMatch(/query string/)
    expect(configError({ baseUrl: "https://x.example/api#top" }).issues[0]?.message).toMatch(/fragment/)
    expect(configError({ baseUrl: "https://u:p@x.example" }).issues[0]?.message).toMatch(/credentials/)
    expect(configError({ baseUrl: "ftp://x.example" }).issues[0]?.message).toMatch(/http/)
    expect(configError({ baseUrl: "/relative" }).issues[0]?.message).toMatch(/absolute URL/)
    expect(configError({ baseUrl: 42 }).issues[0]?.message).toMatch(/string or a URL/)
  })

  it("refuses an API key with an http: base URL except for localhost, 127.0.0.1 and [::1]", () => {
    const error = configError({ baseUrl: "http://consent.example.com", apiKey: "k" })
    expect(error.issues).toEqual([{ path: ["baseUrl"], message: expect.stringMatching(/https:/) }])
    for (const host of ["localhost", "127.0.0.1", "[::1]"]) {
      expect(() => createSvcClient({ baseUrl: `http://${host}:3000`, apiKey: "k" })).not.toThrow()
    }
    expect(() => createSvcClient({ baseUrl: "http://consent.example.com" })).not.toThrow()
    expect(() => createSvcClient({ baseUrl: "https://consent.example.com", apiKey: "k" })).not.toThrow()
  })

  it("checks timeoutMs as an integer from 1 to 2147483647", () => {
    for (const bad of [0, -1, 1.5, 2_147_483_648, "100", Number.NaN]) {
      expect(paths(configError({ baseUrl: "https://x.example", timeoutMs: bad }))).toEqual(["timeoutMs"])
    }
    for (const good of [1, 2_147_483_647]) {
      expect(() => createSvcClient({ baseUrl: "https://x.example", timeoutMs: good })).not.toThrow()
    }
  })

  it("checks retry: false, or maxRetries 0..10 and delays 0..2147483647", () => {
    expect(() => createSvcClient({ baseUrl: "https://x.example", retry: false })).not.toThrow()
    expect(() =>
      createSvcClient({
        baseUrl: "https://x.example",
        retry: { maxRetries: 10, initialDelayMs: 0, maxDelayMs: 2_147_483_647 }
      })
    ).not.toThrow()
    const error = configError({
      baseUrl: "https://x.example",
      retry: { maxRetries: 11, initialDelayMs: -1, maxDelayMs: 1.5, jitter: true }
    })
    expect(paths(error).sort()).toEqual(["retry.initialDelayMs", "retry.jitter", "retry.maxDelayMs",
      "retry.maxRetries"])
    expect(paths(configError({ baseUrl: "https://x.example", retry: true }))).toEqual(["retry"])
  })

  it("lists every problem in one error, without echoing the API key", () => {
    const secret = "sk_live_secret_value"
    const error = configError({
      baseUrl: "http://consent.example.com?x=1",
      apiKey: secret + "\n",
      fetch: "nope",
      headers: { "bad header": "x", "x-ok": 1 },
      timeoutMs: 0,
      retry: { maxRetries: 99 },
      onEvent: 3,
      timeout: 5
    })
    expect(paths(error).sort()).toEqual([
      "apiKey",
      "baseUrl",
      "baseUrl",
      "fetch",
      "headers.bad header",
      "headers.x-ok",
      "onEvent",
      "retry.maxRetries",
      "timeout",
      "timeoutMs"
    ])
    expect(error.message).not.toContain(secret)
    expect(JSON.stringify(error.issues)).not.toContain(secret)
    expect(error.name).toBe("SvcConfigurationError")
  })

  it("refuses an options value that is not an object, and an empty API key", () => {
    expect(configError(undefined).issues).toHaveLength(1)
    expect(paths(configError({ baseUrl: "https://x.example", apiKey: "" }))).toEqual(["apiKey"])
  })

  it("requires a fetch when the runtime has none", () => {
    vi.stubGlobal("fetch", undefined)
    expect(paths(configError({ baseUrl: "https://x.example" }))).toEqual(["fetch"])
    expect(() => createSvcClient({ baseUrl: "https://x.example", fetch: async () => new Response("{}") })).not.toThrow()
  })

  it("reads no environment variables", () => {
    const env = new Proxy(process.env, {
      get: (target, key) => {
        if (typeof key === "string" && /svc|api|key|url|proxy/i.test(key)) throw new Error(`read ${key}`)
        return Reflect.get(target, key)
      }
    })
    const original = process.env
    process.env = env
    try {
      expect(() => createSvcClient({ baseUrl: "https://x.example" })).not.toThrow()
    } finally {
      process.env = original
    }
  })
})
