import { startServer } from "@svc/server"
import { once } from "node:events"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { bearer, cookieSave, save } from "./support/consent-saves.js"
import { dialects, freshDatabase } from "./support/dialects.js"

const API_KEY = "otlp-key-0123456789abcdef012345678"
const COLLECTOR_TOKEN = "collector-token-0123456789"
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
const CALLER_SPAN = "00f067aa0ba902b7"

interface OtlpAttribute {
  readonly key: string
  readonly value: { readonly stringValue?: string; readonly intValue?: number | string; readonly boolValue?: boolean }
}
interface OtlpSpan {
  readonly name: string
  readonly kind: number
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly attributes: ReadonlyArray<OtlpAttribute>
}

/** A local OTLP/HTTP collector: keeps every JSON export POSTed to /v1/traces and /v1/metrics. */
const startCollector = async () => {
  const exports: Array<{ path: string; authorization: string | undefined; body: any }> = []
  const read = async (request: IncomingMessage) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString("utf8")
  }
  const server = createServer((request, response) => {
    void read(request).then((text) => {
      expect(request.headers["content-type"]).toMatch(/application\/json/)
      exports.push({ path: request.url ?? "", authorization: request.headers.authorization, body: JSON.parse(text) })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const attr = (span: { attributes: ReadonlyArray<OtlpAttribute> }, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue))
}

describe.each(dialects)("OTLP export of traces and metrics [%s]", (dialect) => {
  it("sends request spans (route template, status, tenant), their SQL spans and svc's metrics to the collector", async () => {
    const collector = await startCollector()
    const db = await freshDatabase(dialect)
    try {
      const server = await startServer({
        database: db.database,
        tenantId: "acme",
        apiKeys: [API_KEY],
        observability: { requests: "none" },
        telemetry: {
          serviceName: "svc-otlp-test",
          otlp: { url: collector.url, headers: { authorization: `Bearer ${COLLECTOR_TOKEN}` } }
        }
      }, { port: 0, host: "127.0.0.1" })
      let subjectId = ""
      try {
        const saved = await save(
          { fetch: (path: string, init?: RequestInit) => fetch(server.url + path, init) } as never,
          cookieSave()
        )
        expect(saved.status).toBe(200)
        subjectId = saved.body.subjectId
        const read = await fetch(`${server.url}/subjects/${subjectId}`, { headers: bearer(API_KEY) })
        expect(read.status).toBe(200)
        expect((await fetch(`${server.url}/subjects/sub_doesnotexist0000000000`, { headers: bearer(API_KEY) })).status)
          .toBe(404)
        // A caller in a trace of its own (W3C trace context): svc's request span joins it.
        const joined = await fetch(`${server.url}/manifest`, {
          headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` }
        })
        expect(joined.status).toBe(200)
        // A malformed header is ignored: a root span as without one.
        expect((await fetch(`${server.url}/manifest`, { headers: { traceparent: "00-nothex-nothex-01" } })).status)
          .toBe(200)
      } finally {
        await server.close() // flushes both exporters
      }

      const traces = collector.exports.filter((e) => e.path === "/v1/traces")
      const metrics = collector.exports.filter((e) => e.path === "/v1/metrics")
      expect(traces.length).toBeGreaterThan(0)
      expect(metrics.length).toBeGreaterThan(0)
      for (const e of collector.exports) expect(e.authorization).toBe(`Bearer ${COLLECTOR_TOKEN}`)

      const resource = traces[0]!.body.resourceSpans[0].resource
      expect(attr(resource, "service.name")).toBe("svc-otlp-test")
      const spans: Array<OtlpSpan> = traces.flatMap((e) =>
        e.body.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans))
      )
      const requestSpans = spans.filter((s) => attr(s, "http.route") !== undefined)
      const post = requestSpans.find((s) => s.name === "POST /subjects")
      expect(post).toBeDefined()
      expect(post!.kind).toBe(2) // SERVER
      expect(post!.parentSpanId ?? "").toBe("")
      expect(attr(post!, "http.response.status_code")).toBe(200)
      expect(attr(post!, "svc.tenant")).toBe("acme")
      const gets = requestSpans.filter((s) => s.name === "GET /subjects/:id")
      expect(gets.map((s) => attr(s, "http.response.status_code")).sort()).toEqual([200, 404])

      const manifests = requestSpans.filter((s) => s.name === "GET /manifest")
      expect(manifests).toHaveLength(2)
      const child = manifests.find((s) => s.traceId === CALLER_TRACE)
      expect(child?.parentSpanId).toBe(CALLER_SPAN)
      expect(manifests.find((s) => s !== child)?.parentSpanId ?? "").toBe("")

      // @effect/sql's statement spans are children of the request span, in its trace.
      const sql = spans.filter((s) => s.traceId === post!.traceId && s.spanId !== post!.spanId)
      expect(sql.length).toBeGreaterThan(0)
      expect(sql.some((s) => s.name.startsWith("sql."))).toBe(true)

      const metricNames = new Set(
        metrics.flatMap((e) =>
          e.body.resourceMetrics.flatMap((r: any) =>
            r.scopeMetrics.flatMap((s: any) => s.metrics.map((m: any) => m.name))
          )
        )
      )
      expect(metricNames).toContain("svc_http_requests_total")
      expect(metricNames).toContain("svc_http_request_duration_seconds")
      expect(metricNames).toContain("svc_consent_saves_total")
      expect(metricNames).toContain("svc_db_statement_duration_seconds")
      expect(metricNames).toContain("svc_db_statements_total")

      // Nothing that identifies a visitor or grants access leaves in an export.
      const all = JSON.stringify(collector.exports.map((e) => e.body))
      expect(all).not.toContain(subjectId)
      expect(all).not.toContain(API_KEY)
      // No attribute that could carry a visitor's address, the concrete URL or the user agent.
      const keys = new Set(spans.flatMap((span) => span.attributes.map((a) => a.key)))
      for (const key of ["client.address", "url.full", "url.path", "url.query", "user_agent.original", "http.url",
        "http.target"])
      {
        expect(keys.has(key), key).toBe(false)
      }
    } finally {
      await collector.close()
      await db.drop()
    }
  })
})
