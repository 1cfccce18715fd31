import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createSvcClient, type SvcClient, type SvcResult } from "../src/index.js"
import { statusBody, subjectId } from "./support/fixtures.js"
import { type FakeServer, reply, startFakeServer } from "./support/fake-server.js"
import { configError } from "./support/config-error.js"

/*
 * "Every method resolves to a result object and never rejects. The only thrown error is
 * SvcConfigurationError from client creation." Here with options built to break naive readers:
 * throwing getters, proxies whose traps throw, revoked proxies, and header values fetch refuses.
 */

let server: FakeServer
beforeAll(async () => {
  server = await startFakeServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  server.handle(reply(200, statusBody))
})

const boom = () => {
  throw new Error("boom")
}
const throwingGetter = (key: string, base: object = {}) =>
  Object.defineProperty({ ...base }, key, { enumerable: true, get: boom })
const throwingKeys = (target: object = {}) => new Proxy(target, { ownKeys: boom })
const throwingGet = (target: object = {}) => new Proxy(target, { get: boom })
const throwingDescriptor = (target: object) => new Proxy(target, { getOwnPropertyDescriptor: boom })
const throwingPrototype = (target: object) => new Proxy(target, { getPrototypeOf: boom })
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

const client = () => createSvcClient({ baseUrl: server.origin, apiKey: "key-1", retry: false }) as SvcClient
const anyClient = () => client() as unknown as Record<string, any>

/** Calls without letting a synchronous throw escape unnoticed; expects INVALID_INPUT with nothing sent. */
const invalidPaths = async (call: () => Promise<SvcResult<unknown>>) => {
  let promise: Promise<SvcResult<unknown>> | undefined
  expect(() => {
    promise = call()
  }).not.toThrow()
  const result = await promise!
  expect(result.ok).toBe(false)
  if (result.ok) throw new Error("expected a failure")
  expect(result.error.code).toBe("INVALID_INPUT")
  expect(result.error.retryable).toBe(false)
  expect(result.error.requestId).toBeUndefined()
  expect(server.requests).toHaveLength(0)
  return result.error.issues!.map((issue) => issue.path.join("."))
}

const configPaths = (options: unknown) => configError(options).issues.map((issue) => issue.path.join("."))

describe("hostile call options resolve to INVALID_INPUT (never a throw or a rejection)", () => {
  it("a throwing getter on any call option gives an issue at its path", async () => {
    for (const key of ["timeoutMs", "headers", "retry", "requestId", "signal"]) {
      expect(await invalidPaths(() => anyClient().status(throwingGetter(key)))).toEqual([`options.${key}`])
    }
    expect(await invalidPaths(() => anyClient().status(throwingGetter("maxRetries")))).toEqual([
      "options.maxRetries"
    ])
    expect(await invalidPaths(() => anyClient().status({ retry: throwingGetter("maxRetries") }))).toEqual([
      "options.retry.maxRetries"
    ])
    expect(await invalidPaths(() => anyClient().status({ headers: throwingGetter("x-a") }))).toEqual([
      "options.headers.x-a"
    ])
    expect(await invalidPaths(() => anyClient().status({ signal: throwingGetter("aborted") }))).toEqual([
      "options.signal"
    ])
  })

  it("proxies whose traps throw, and revoked proxies, give an issue", async () => {
    const cases: Array<[unknown, string]> = [
      [{ headers: throwingKeys() }, "options.headers"],
      [{ headers: throwingGet({ "x-a": "1" }) }, "options.headers.x-a"],
      [{ headers: throwingDescriptor({ "x-a": "1" }) }, "options.headers"],
      [{ headers: revoked() }, "options.headers"],
      [{ retry: throwingKeys() }, "options.retry"],
      [{ retry: revoked() }, "options.retry"],
      [throwingKeys(), "options"],
      [throwingGet(), "options.signal"],
      [revoked(), "options"]
    ]
    for (const [options, path] of cases) {
      server.reset()
      const paths = await invalidPaths(() => anyClient().status(options))
      expect(paths[0]).toBe(path)
    }
  })

  it("a Headers instance whose iteration throws gives an issue", async () => {
    class BadHeaders extends Headers {
      override entries(): never {
        return boom()
      }
    }
    expect(await invalidPaths(() => anyClient().status({ headers: new BadHeaders() }))).toEqual(["options.headers"])
  })

  it("holds for every method, with the options at their argument index", async () => {
    const options = throwingGetter("timeoutMs")
    const c = anyClient()
    const calls: Array<() => Promise<SvcResult<unknown>>> = [
      () => c.status(options),
      () => c.init({}, options),
      () => c.manifest({}, options),
      () => c.consents.check({ externalId: "u", types: ["dpa"] }, options),
      () => c.subjects.identify(subjectId, { externalId: "u" }, options),
      () => c.subjects.get(subjectId, {}, options),
      () => c.subjects.create({}, options),
      () => c.subjects.list({ externalId: "u" }, options),
      () => c.legalDocuments.publish("dpa", { version: "1", hash: "h", effectiveDate: "2026-01-01" }, options),
      () => c.experiments.summary("exp", {}, options)
    ]
    for (const call of calls) expect(await invalidPaths(call)).toEqual(["options.timeoutMs"])
  })

  it("hostile inputs resolve too", async () => {
    const c = anyClient()
    const hostile = [throwingKeys(), throwingGet(), revoked(), throwingGetter("externalId")]
    for (const input of hostile) {
      for (const call of [() => c.subjects.list(input), () => c.subjects.create(input)]) {
        let promise: Promise<SvcResult<unknown>> | undefined
        expect(() => {
          promise = call()
        }).not.toThrow()
        const result = await promise!
        expect(result.ok).toBe(false)
        expect(!result.ok && result.error.code).toBe("INVALID_INPUT")
      }
    }
    expect(server.requests).toHaveLength(0)
    // init reads only named properties, so a proxy that refuses to list its keys is simply empty.
    for (const input of hostile) {
      const result = await c.init(input)
      expect(typeof result.ok).toBe("boolean")
    }
  })
})

describe("hostile client options throw only SvcConfigurationError", () => {
  it("a throwing getter on any option", () => {
    for (const key of ["baseUrl", "apiKey", "fetch", "headers", "timeoutMs", "retry", "onEvent"]) {
      expect(configPaths(throwingGetter(key, { baseUrl: server.origin }))).toEqual([key])
    }
    expect(configPaths({ baseUrl: server.origin, retry: throwingGetter("maxDelayMs") })).toEqual(["retry.maxDelayMs"])
    expect(configPaths({ baseUrl: server.origin, headers: throwingGetter("x-a") })).toEqual(["headers.x-a"])
  })

  it("an options class with getters on its prototype still works", () => {
    const origin = server.origin
    class Options {
      get baseUrl() {
        return origin
      }
    }
    expect(() => createSvcClient(new Options())).not.toThrow()
  })

  it("proxies whose traps throw, and revoked proxies", () => {
    const base = { baseUrl: server.origin }
    expect(configPaths(throwingKeys(base))).toEqual([""])
    expect(configPaths(throwingGet(base))[0]).toBe("baseUrl")
    expect(configPaths(throwingDescriptor(base))).toEqual([""])
    expect(configPaths(revoked())).toEqual([""])
    expect(configPaths({ ...base, headers: throwingKeys() })).toEqual(["headers"])
    expect(configPaths({ ...base, headers: revoked() })).toEqual(["headers"])
    expect(configPaths({ ...base, retry: throwingKeys() })).toEqual(["retry"])
    expect(configPaths({ baseUrl: throwingPrototype(new URL(server.origin)) })).toEqual(["baseUrl"])
  })
})

describe("header names and values follow RFC 9110 (refused before sending)", () => {
  const badValues = ["€", "caf\u00e9", "a\u0001b", "a\u007fb", "a\u0000b", "a\rb", "a\nb", "\u2028", "\uD83D\uDE00"]
  const forbidden = [
    "connection",
    "Keep-Alive",
    "transfer-encoding",
    "upgrade",
    "expect",
    "Host",
    "content-length",
    "te",
    "trailer",
    "proxy-authorization",
    "Proxy-Connection",
    "sec-fetch-mode",
    "Sec-CH-UA"
  ]

  it("call headers: non-ASCII and control characters in values", async () => {
    for (const value of badValues) {
      expect(await invalidPaths(() => client().status({ headers: { "x-a": value } }))).toEqual(["options.headers.x-a"])
      expect(
        await invalidPaths(() => client().status({ headers: new Headers({ "x-b": "ok" }), requestId: `r${value}` }))
      )
        .toEqual(["options.requestId"])
    }
  })

  it("call headers: names that are not tokens, and names fetch forbids or that break the request", async () => {
    for (const name of ["x a", "x:a", "é", "", "x/a", "x@a", "(x)"]) {
      expect(await invalidPaths(() => client().status({ headers: { [name]: "1" } }))).toEqual([
        `options.headers.${name}`
      ])
    }
    for (const name of forbidden) {
      expect(await invalidPaths(() => client().status({ headers: { [name]: "1" } }))).toEqual([
        `options.headers.${name}`
      ])
    }
  })

  it("init language and manifest ifNoneMatch", async () => {
    for (const value of badValues) {
      expect(await invalidPaths(() => client().init({ language: `en${value}` }))).toEqual(["language"])
      expect(await invalidPaths(() => client().manifest({ ifNoneMatch: `"x${value}"` }))).toEqual(["ifNoneMatch"])
    }
  })

  it("accepts token names, visible ASCII with inner spaces and tabs, and trims surrounding white space", async () => {
    const result = await client().status({
      headers: { "x-tok!#$%&'*+-.^_`|~09az": "v", "x-inner": "a b\tc", "x-padded": " \tpadded\t " }
    })
    expect(result.ok).toBe(true)
    const headers = server.requests[0]!.headers
    expect(headers["x-tok!#$%&'*+-.^_`|~09az"]).toBe("v")
    expect(headers["x-inner"]).toBe("a b\tc")
    expect(headers["x-padded"]).toBe("padded")
    server.reset()
    server.handle(reply(200, {}))
    await client().init({ language: " de-DE,de;q=0.9 " })
    expect(server.requests[0]!.headers["accept-language"]).toBe("de-DE,de;q=0.9")
  })

  it("client headers and the API key give SvcConfigurationError, never echoing the key", () => {
    const base = { baseUrl: server.origin }
    for (const value of badValues) {
      expect(configPaths({ ...base, headers: { "x-a": value } })).toEqual(["headers.x-a"])
      const key = `sk_live_secret${value}tail`
      const error = configError({ ...base, apiKey: key })
      expect(error.issues.map((issue) => issue.path.join("."))).toEqual(["apiKey"])
      expect(error.message).not.toContain("sk_live_secret")
      expect(JSON.stringify(error.issues)).not.toContain("sk_live_secret")
    }
    for (const name of forbidden)
      expect(configPaths({ ...base, headers: { [name]: "1" } })).toEqual([`headers.${name}`])
    expect(configPaths({ ...base, headers: new Headers({ host: "evil.example" }) })).toEqual(["headers.host"])
    expect(() => createSvcClient({ ...base, apiKey: "key with inner space" })).not.toThrow()
  })
})
