import { describe, expect, it } from "@effect/vitest"
import { svcInstance } from "@svc/backend"
import { Effect, Logger } from "effect"
import { SignJWT } from "jose"
import { randomBytes } from "node:crypto"
import { tmpdir } from "node:os"
import { afterAll, afterEach, beforeEach, vi } from "vitest"
import { logRequest } from "../src/http/request-log.js"
import { makeScrubber } from "../src/http/log-format.js"
import { routeTemplate } from "../src/http/routes.js"
import { cookieSave, newSubjectId } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "log-test-key-5f3a9c1e7b2d4068-012345"
const SIGNING_KEY = "policy-signing-key-0123456789abcdef0123456789"
const IDENTITY_KEY = "identity-signing-key-0123456789abcdef012345"

const manifest = {
  policyRules: [{
    id: "world",
    match: { default: true as const },
    model: "opt-in" as const,
    categories: ["measurement" as const, "marketing" as const, "functionality" as const, "experience" as const]
  }]
}

/** Every line the process writes through `console` while `fn` runs. */
const captureConsole = () => {
  const lines: Array<string> = []
  const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
      lines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "))
    })
  )
  return { lines, restore: () => spies.forEach((spy) => spy.mockRestore()) }
}

const requestEvents = (lines: ReadonlyArray<string>): Array<Record<string, unknown>> =>
  lines.flatMap((line) => {
    try {
      const parsed = JSON.parse(line) as { message?: unknown; annotations?: Record<string, unknown>; logLevel?: string }
      return parsed.message === "request" ? [{ level: parsed.logLevel, ...parsed.annotations }] : []
    } catch {
      return []
    }
  })

describe.each(dialects)("request logs [%s]", (dialect) => {
  const server = useServer(dialect, {
    apiKeys: [API_KEY],
    manifest,
    policySnapshot: { signingKey: SIGNING_KEY },
    identityToken: { signingKey: IDENTITY_KEY },
    observability: { requests: "all", format: "json" }
  })
  let capture: ReturnType<typeof captureConsole>
  beforeEach(() => {
    capture = captureConsole()
  })
  afterEach(() => capture.restore())

  it("writes one JSON wide event per request, and never a key, a token or a subject id", async () => {
    const subjectId = newSubjectId()
    const init = await (await server.fetch("/init?contract=1&country=DE")).json() as { policySnapshotToken: string }
    const policyToken = init.policySnapshotToken
    expect(typeof policyToken).toBe("string")
    const identityToken = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("user-42")
      .setIssuer("svc")
      .setAudience("svc-identity")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(IDENTITY_KEY))
    const badToken = `${identityToken.slice(0, -4)}AAAA`
    const keyed = { authorization: `Bearer ${API_KEY}` }
    const json = { "content-type": "application/json" }

    const saved = await server.fetch("/subjects", {
      method: "POST",
      headers: { ...json, "x-request-id": "req-save-1" },
      body: JSON.stringify(
        cookieSave({ subjectId, policySnapshotToken: policyToken, externalSubjectId: "user-42", identityToken })
      )
    })
    expect(saved.status, await saved.clone().text()).toBe(200)
    expect((await server.fetch(`/subjects/${subjectId}`)).status).toBe(200)
    const patched = await server.fetch(`/subjects/${subjectId}`, {
      method: "PATCH",
      headers: json,
      body: JSON.stringify({ externalId: "user-43", identityToken: badToken })
    })
    expect(patched.status).toBeGreaterThanOrEqual(400)
    expect((await server.fetch("/subjects?externalId=user-42", { headers: keyed })).status).toBe(200)
    expect((await server.fetch("/consents/check?externalId=user-42&type=cookie_banner", { headers: keyed })).status)
      .toBe(200)
    expect((await server.fetch("/experiments/exp1/summary", { headers: keyed })).status).toBe(200)
    expect(
      (await server.fetch("/experiments/exp1/summary", { headers: { authorization: `Bearer ${API_KEY}x` } })).status
    ).toBe(401)
    expect((await server.fetch(`/subjects/${subjectId}/nothing-here`)).status).toBe(404)
    const preflight = await server.fetch(`/subjects/${subjectId}`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "PATCH" }
    })
    expect(preflight.status).toBe(204)

    const output = capture.lines.join("\n")
    for (const secret of [API_KEY, subjectId, subjectId.slice(4), policyToken, identityToken, badToken]) {
      expect(output).not.toContain(secret)
    }
    // Not even the signature part of a token.
    for (const token of [policyToken, identityToken]) expect(output).not.toContain(token.split(".")[2]!)

    const events = requestEvents(capture.lines)
    expect(events.map((e) => [e.method, e.route, e.status])).toEqual([
      ["GET", "/init", 200],
      ["POST", "/subjects", 200],
      ["GET", "/subjects/:id", 200],
      ["PATCH", "/subjects/:id", patched.status],
      ["GET", "/subjects", 200],
      ["GET", "/consents/check", 200],
      ["GET", "/experiments/:id/summary", 200],
      ["GET", "/experiments/:id/summary", 401],
      ["GET", "(unknown)", 404],
      ["OPTIONS", "/subjects/:id", 204]
    ])
    // where the visitor's location came from: the /init override, and none for the save from loopback
    expect(events[0]).toMatchObject({ "location.source": "override", "policy.resolution": "matched" })
    const save = events[1]!
    expect(save).toMatchObject({
      "location.source": "none",
      level: "INFO",
      tenant: null,
      requestId: "req-save-1",
      "consent.decisionSource": "snapshot_token"
    })
    expect(typeof save.durationMs).toBe("number")
    expect(events[3]!.level).toBe("WARN")
    expect(events[7]!.level).toBe("WARN")
    for (const event of events)
      expect(Object.keys(event)).toEqual(expect.arrayContaining(["method", "route", "status"]))
  })
})

describe("request log levels (default: warnings and errors only)", () => {
  it("logs a 4xx at warning and no success when observability.requests is not set", async () => {
    const instance = svcInstance({
      database: { dialect: "sqlite", url: `${tmpdir()}/svc_log_${randomBytes(4).toString("hex")}.db` },
      apiKeys: [API_KEY],
      observability: { format: "json" }
    })
    const capture = captureConsole()
    try {
      expect((await instance.handler(new Request("http://svc.test/status"))).status).toBe(200)
      const refused = await instance.handler(
        new Request("http://svc.test/experiments/x/summary?from=nope", {
          headers: { authorization: `Bearer ${API_KEY}` }
        })
      )
      expect(refused.status).toBe(400)
    } finally {
      capture.restore()
      await instance.dispose()
    }
    const events = requestEvents(capture.lines)
    expect(events.map((e) => [e.level, e.route, e.status])).toEqual([["WARN", "/experiments/:id/summary", 400]])
  })

  it.effect("maps statuses to levels for each observability.requests value", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const logger = Logger.make<unknown, void>(({ logLevel, annotations }) => {
        seen.push(`${logLevel.label}:${String(annotations.pipe((m) => [...m].find(([k]) => k === "status")?.[1]))}`)
      })
      const run = (level: "all" | "warnings" | "errors" | "none") =>
        Effect.gen(function*() {
          seen.length = 0
          for (const status of [200, 404, 503]) yield* logRequest(level, { status })
          return [...seen]
        }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      expect(yield* run("all")).toEqual(["INFO:200", "WARN:404", "ERROR:503"])
      expect(yield* run("warnings")).toEqual(["WARN:404", "ERROR:503"])
      expect(yield* run("errors")).toEqual(["ERROR:503"])
      expect(yield* run("none")).toEqual([])
    }))
})

describe("log format", () => {
  const file = `${tmpdir()}/svc_log_${randomBytes(4).toString("hex")}.db`
  const instances: Array<ReturnType<typeof svcInstance>> = []
  afterAll(async () => {
    await Promise.all(instances.map((i) => i.dispose()))
  })
  const handlerWith = (format: "json" | "logfmt" | "pretty") => {
    const instance = svcInstance({
      database: { dialect: "sqlite", url: file },
      apiKeys: [API_KEY],
      observability: { requests: "all", format }
    })
    instances.push(instance)
    return instance.handler
  }

  it("svcInstance().handler honours json, logfmt and pretty, and scrubs every line", async () => {
    const subjectId = newSubjectId()
    for (const format of ["json", "logfmt", "pretty"] as const) {
      const capture = captureConsole()
      try {
        const handler = handlerWith(format)
        const response = await handler(
          new Request("http://svc.test/status", { headers: { authorization: `Bearer ${API_KEY}` } })
        )
        expect(response.status).toBe(200)
        await handler(new Request(`http://svc.test/subjects/${subjectId}/x`))
      } finally {
        capture.restore()
      }
      const output = capture.lines.join("\n")
      expect(output, format).not.toContain(API_KEY)
      expect(output, format).not.toContain(subjectId)
      if (format === "json") {
        expect(requestEvents(capture.lines).map((e) => [e.route, e.status])).toEqual([["/status", 200], ["(unknown)",
          404]])
      } else if (format === "logfmt") {
        const line = capture.lines.find((l) => l.includes("route=/status"))
        expect(line, capture.lines.join("\n")).toMatch(/level=INFO .*message=request/)
        expect(line).toMatch(/ status=200( |$)/)
      } else {
        expect(capture.lines.some((line) => /INFO.*request/.test(line))).toBe(true)
        expect(capture.lines.some((line) => line.includes("/status"))).toBe(true)
      }
    }
  })

  it("the scrubber removes keys, bearer credentials, JWTs and subject ids from any text", () => {
    const scrub = makeScrubber([API_KEY])
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLXBhcnQ"
    const text = `key ${API_KEY}; Authorization: Bearer abc.def; token=${jwt}; Key (id)=(sub_AbCdEfGh1234) exists`
    const out = scrub(text)
    for (const secret of [API_KEY, "abc.def", jwt, "sub_AbCdEfGh1234"]) expect(out).not.toContain(secret)
    expect(out).toContain("sub_[redacted]")
  })

  it("route templates of unmatched paths hide ids and tokens", () => {
    expect(routeTemplate("/subjects/sub_abcdefgh12")).toBe("/subjects/:id")
    expect(routeTemplate("/subjects/sub_abcdefgh12/x")).toBe("/subjects/:param/x")
    expect(routeTemplate(`/a/${"x".repeat(40)}`)).toBe("/a/:param")
    expect(routeTemplate("/spec.json")).toBe("/spec.json")
  })
})
