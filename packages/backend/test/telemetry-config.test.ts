import { svcInstance } from "@svc/backend"
import { describe, expect, it } from "vitest"
import { problemsOf } from "./support/config-problems.js"

const database = { dialect: "sqlite", url: ":memory:" } as const
const apiKeys = ["telemetry-key-0123456789abcdef0123"]

describe("telemetry option validation", () => {
  it("accepts the documented shapes", async () => {
    for (const telemetry of [
      {},
      { prometheus: {} },
      { prometheus: { path: "/ops/metrics" }, serviceName: "consent" },
      { otlp: { url: "http://127.0.0.1:4318", headers: { authorization: "Bearer x" } } }
    ]) {
      const instance = svcInstance({ database, apiKeys, telemetry })
      await instance.dispose()
    }
  })

  it("needs API keys for the Prometheus endpoint", () => {
    expect(problemsOf({ database, telemetry: { prometheus: {} } })).toContain(
      "telemetry.prometheus: needs apiKeys (GET /metrics answers only to a configured API key)"
    )
  })

  it("refuses a collector URL that is not http(s), a relative path and unknown keys", () => {
    expect(problemsOf({ database, telemetry: { otlp: { url: "collector:4318" } } })).toContain(
      "telemetry.otlp.url: expected an http: or https: URL of an OTLP/HTTP collector"
    )
    expect(problemsOf({ database, apiKeys, telemetry: { prometheus: { path: "metrics" } } }).join("\n")).toMatch(
      /^telemetry\.prometheus\.path: /m
    )
    expect(problemsOf({ database, telemetry: { jaeger: {} } }).join("\n")).toMatch(
      /^telemetry\.jaeger: unknown option/m
    )
  })

  it("never repeats an OTLP header value in a problem", () => {
    const problems = problemsOf({
      database,
      telemetry: { otlp: { url: "http://127.0.0.1:4318", headers: { authorization: 42 } } }
    })
    expect(problems.join("\n")).toMatch(/^telemetry\.otlp\.headers\.authorization: /m)
    expect(problems.join("\n")).not.toContain("42")
  })
})
