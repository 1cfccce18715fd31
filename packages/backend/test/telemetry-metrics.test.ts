import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { allPreferences, bearer, call, cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { parsePrometheusText } from "./support/prometheus-text.js"
import { type TestOptions, type TestServer, useServer } from "./support/server.js"

const API_KEY = "metrics-key-0123456789abcdef0123"
const SIGNING_KEY = "policy-snapshot-signing-key-0123456789"

const options: TestOptions = {
  apiKeys: [API_KEY],
  telemetry: { prometheus: {} },
  policySnapshot: { signingKey: SIGNING_KEY },
  manifest: {
    policyRules: [
      { id: "eu", match: { countries: ["DE"] }, model: "opt-in", categories: ["measurement", "marketing"] },
      {
        id: "rest",
        match: { default: true },
        model: "opt-out",
        categories: ["measurement", "marketing", "functionality", "experience"]
      }
    ]
  }
}

/** Scrapes `/metrics` and parses it strictly (any malformed line fails the test). */
const scrape = async (server: TestServer) => {
  const response = await server.fetch("/metrics", { headers: bearer(API_KEY) })
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
  const text = await response.text()
  return { text, ...parsePrometheusText(text) }
}

type Scrape = Awaited<ReturnType<typeof scrape>>

/** The value of the one sample named `name` whose labels include `labels` (0 when absent). */
const valueOf = (scraped: Scrape, name: string, labels: Record<string, string>): number => {
  const matching = scraped.samples.filter((s) =>
    s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)
  )
  expect(matching.length).toBeLessThanOrEqual(1)
  return matching[0]?.value ?? 0
}

describe.each(dialects)("GET /metrics (Prometheus) [%s]", (dialect) => {
  const server = useServer(dialect, options)

  it("answers only to a configured API key, with the spec's error body", async () => {
    for (const headers of [{}, bearer("not-the-key-0123456789abcdef0123"), { authorization: API_KEY }]) {
      const response = await call(server, "GET", "/metrics", undefined, headers)
      expect(response.status).toBe(401)
      expect(response.body.cause).toEqual({ code: "UNAUTHORIZED" })
    }
  })

  it("counts requests per route template and status class, /init resolutions, saves and refusals", async () => {
    const before = await scrape(server)

    // /init answered by the bundled server's fast path (GET) and by the ordinary route (HEAD).
    const de = await call(server, "GET", "/init?country=DE")
    expect(de.status).toBe(200)
    const us = await call(server, "GET", "/init?country=US")
    expect(us.status).toBe(200)
    const token = us.body.policySnapshotToken as string
    expect((await call(server, "HEAD", "/init?country=FR")).status).toBe(200)
    // A repeated name does not decode: the fast path declines it (counted) and the pipeline answers its 400.
    expect((await call(server, "GET", "/init?country=DE&country=FR")).status).toBe(400)

    const saved = await save(server, cookieSave({ policySnapshotToken: token }))
    expect(saved.status, JSON.stringify(saved.body)).toBe(200)
    const subjectId = saved.body.subjectId as string

    // A retry of the same act with other choices: 409 CONFLICT.
    const act = cookieSave({ policySnapshotToken: token, preferences: allPreferences(false), action: "reject_all" })
    expect((await save(server, act)).status).toBe(200)
    expect((await save(server, { ...act, preferences: allPreferences(true) })).body.cause).toEqual({ code: "CONFLICT" })

    // A grant the rule in the snapshot does not offer: 422 STALE_POLICY decision-mismatch.
    const stale = await save(
      server,
      cookieSave({ policySnapshotToken: de.body.policySnapshotToken, preferences: allPreferences(true) })
    )
    expect(stale.body.cause).toEqual({ code: "STALE_POLICY", reason: "decision-mismatch" })

    const read = await call(server, "GET", `/subjects/${subjectId}`, undefined, bearer(API_KEY))
    expect(read.status).toBe(200)
    expect((await call(server, "GET", "/subjects/sub_doesnotexist0000000000", undefined, bearer(API_KEY))).status).toBe(
      404
    )

    const after = await scrape(server)
    const delta = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels)

    expect(delta("svc_init_resolutions_total", { status: "matched", matched_by: "country" })).toBe(1)
    expect(delta("svc_init_resolutions_total", { status: "matched", matched_by: "default" })).toBe(2)
    expect(delta("svc_http_requests_total", { route: "/init", method: "GET", status_class: "2xx" })).toBe(2)
    expect(delta("svc_http_requests_total", { route: "/init", method: "HEAD", status_class: "2xx" })).toBe(1)
    expect(delta("svc_http_requests_total", { route: "/init", method: "GET", status_class: "4xx" })).toBe(1)
    expect(delta("svc_init_fast_path_declines_total", { reason: "query" })).toBe(1)
    expect(delta("svc_http_requests_total", { route: "/subjects", method: "POST", status_class: "2xx" })).toBe(2)
    expect(delta("svc_http_requests_total", { route: "/subjects", method: "POST", status_class: "4xx" })).toBe(2)
    expect(delta("svc_http_requests_total", { route: "/subjects/:id", method: "GET", status_class: "2xx" })).toBe(1)
    expect(delta("svc_http_requests_total", { route: "/subjects/:id", method: "GET", status_class: "4xx" })).toBe(1)
    expect(
      delta("svc_http_request_duration_seconds_count", { route: "/subjects", method: "POST", status_class: "2xx" })
    ).toBe(2)
    expect(
      delta("svc_http_request_duration_seconds_bucket", {
        route: "/subjects",
        method: "POST",
        status_class: "2xx",
        le: "+Inf"
      })
    ).toBe(2)
    expect(delta("svc_consent_refusals_total", { code: "CONFLICT", reason: "none" })).toBe(1)
    expect(delta("svc_consent_refusals_total", { code: "STALE_POLICY", reason: "decision-mismatch" })).toBe(1)
    expect(delta("svc_consent_saves_total", { type: "cookie_banner", policy: "rest", action: "none" })).toBe(1)
    expect(delta("svc_consent_saves_total", { type: "cookie_banner", policy: "rest", action: "reject_all" })).toBe(1)

    expect(after.types.get("svc_http_request_duration_seconds")).toBe("histogram")
    expect(after.types.get("svc_http_requests_total")).toBe("counter")

    // The SQL statements these requests ran: the saves' inserts (on PostgreSQL one WITH statement
    // writes a save's subject and act, ADR 0101) and the reads' selects, timed.
    expect(
      delta("svc_db_statements_total", { statement: "insert", outcome: "ok" }) +
        delta("svc_db_statements_total", { statement: "with", outcome: "ok" })
    ).toBeGreaterThanOrEqual(2)
    expect(delta("svc_db_statements_total", { statement: "select", outcome: "ok" })).toBeGreaterThanOrEqual(2)
    expect(delta("svc_db_statement_duration_seconds_count", { statement: "select" })).toBeGreaterThanOrEqual(2)
    expect(delta("svc_db_statement_duration_seconds_sum", { statement: "select" })).toBeGreaterThan(0)
    expect(after.types.get("svc_db_statement_duration_seconds")).toBe("histogram")
    expect(after.types.get("svc_db_statements_total")).toBe("counter")
    // Concurrent use: every statement of the finished requests has ended.
    expect(after.types.get("svc_db_statements_in_flight")).toBe("gauge")
    expect(valueOf(after, "svc_db_statements_in_flight", {})).toBeGreaterThanOrEqual(0)

    // Process gauges are there; no subject id, key or concrete path ever is.
    expect(valueOf(after, "svc_process_memory_bytes", { kind: "rss" })).toBeGreaterThan(0)
    expect(after.types.get("svc_event_loop_delay_seconds")).toBe("gauge")
    expect(after.text).not.toContain(subjectId)
    expect(after.text).not.toContain("sub_doesnotexist")
    expect(after.text).not.toContain(API_KEY)
  })
})

describe("docs/grafana/svc-dashboard.json", () => {
  it("queries only metrics svc defines", () => {
    const dashboard = readFileSync(new URL("../../../docs/grafana/svc-dashboard.json", import.meta.url), "utf8")
    const defined = readFileSync(new URL("../src/telemetry/metrics.ts", import.meta.url), "utf8")
    const used = new Set(
      [...dashboard.matchAll(/svc_[a-z_]+/g)].map(([name]) => name.replace(/_(bucket|sum|count)$/, ""))
    )
    expect(used.size).toBeGreaterThan(5)
    for (const name of used) expect(defined, name).toContain(`"${name}"`)
  })
})

describe.each(dialects)("telemetry off [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY] })

  it("serves no /metrics route", async () => {
    const response = await call(server, "GET", "/metrics", undefined, bearer(API_KEY))
    expect(response.status).toBe(404)
    expect(response.body.cause).toEqual({ code: "ROUTE_NOT_FOUND" })
  })
})
