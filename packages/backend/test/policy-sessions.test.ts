import { describe, expect, it } from "@effect/vitest"
import type { SessionReport } from "@svc/schema"
import { Effect } from "effect"
import { dialects } from "./support/dialects.js"
import { manifest } from "./support/policy-manifest.js"
import { useServer } from "./support/server.js"
import { sessionReport } from "./support/session-report.js"

const report = { ...sessionReport, journey: { id: "jrn_abc" } } as const

const post = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", "x-svc-version": "3.1.0", ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body)
})

const tables = ["svc_subjects", "svc_consents", "svc_legal_documents"]

describe.each(dialects)("POST /sessions [%s]", (dialect) => {
  const reports: Array<SessionReport> = []
  const server = useServer(dialect, { manifest, sessions: { onReport: (r) => void reports.push(r) } })
  const unmasked = useServer(dialect, {
    manifest,
    ipAddress: { masking: false },
    sessions: { onReport: (r) => void reports.push(r) }
  })
  const untracked = useServer(dialect, {
    manifest,
    ipAddress: { tracking: false },
    sessions: { onReport: (r) => void reports.push(r) }
  })
  const lastReport = async () => {
    await expect.poll(() => reports.length, { timeout: 2000 }).toBeGreaterThan(0)
    return reports.pop()!
  }

  it("hands the report to sessions.onReport with the masked X-SVC-Client-IP and user agent, answers 204 and writes nothing", async () => {
    reports.length = 0
    const response = await server.fetch(
      "/sessions",
      post(report, { "x-svc-client-ip": "203.0.113.77", "user-agent": "Visitor/1.0" })
    )
    expect(response.status).toBe(204)
    expect(await response.text()).toBe("")
    const received = await lastReport()
    expect(received).toMatchObject({ ...report, ipAddress: "203.0.113.0", userAgent: "Visitor/1.0" })
    expect(received.receivedAt).toBeInstanceOf(Date)
    for (const table of tables) {
      const rows = await server.db().query(`SELECT COUNT(*) AS n FROM ${table}`)
      expect(Number(rows[0]!.n), table).toBe(0)
    }
  })

  it("applies the ipAddress settings: masking off keeps the address, tracking off records none", async () => {
    reports.length = 0
    await unmasked.fetch("/sessions", post(report, { "x-svc-client-ip": "2001:db8:1234:5678::1" }))
    expect((await lastReport()).ipAddress).toBe("2001:db8:1234:5678::1")
    await server.fetch("/sessions", post(report, { "x-svc-client-ip": "2001:db8:1234:5678::1" }))
    expect((await lastReport()).ipAddress).toBe("2001:db8:1234::")
    await untracked.fetch("/sessions", post(report, { "x-svc-client-ip": "203.0.113.77" }))
    expect((await lastReport()).ipAddress).toBeNull()
    await server.fetch("/sessions", post(report))
    expect((await lastReport()).ipAddress).toBeNull() // the host's own socket address is not the visitor's
  })

  it.effect("is in the derived client, the visitor's address included", () =>
    Effect.gen(function*() {
      reports.length = 0
      const client = yield* server.client
      yield* client.policy.reportSession({
        headers: { "x-svc-version": "3.1.0", "x-svc-client-ip": "203.0.113.77" },
        payload: { ...report, source: "render" }
      })
      expect(yield* Effect.promise(lastReport)).toMatchObject({ source: "render", ipAddress: "203.0.113.0" })
    }))

  it("refuses a request without X-SVC-Version, or with an Origin header, with 400", async () => {
    for (const [name, init] of [
      ["no version", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(report) }],
      ["empty version", post(report, { "x-svc-version": " " })],
      ["origin", post(report, { origin: "https://shop.example" })]
    ] as const) {
      const response = await server.fetch("/sessions", init)
      expect(response.status, name).toBe(400)
      const body = await response.json()
      expect(body.cause.code, name).toBe("INVALID_REQUEST")
      expect(body.message.length, name).toBeGreaterThan(0)
    }
  })

  it("accepts JSON only: other content types get 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const response = await server.fetch("/sessions", post(JSON.stringify(report), { "content-type": contentType }))
      expect(response.status, contentType).toBe(415)
      expect((await response.json()).cause.code).toBe("UNSUPPORTED_MEDIA_TYPE")
    }
    const charset = await server.fetch("/sessions", post(report, { "content-type": "application/json; charset=utf-8" }))
    expect(charset.status).toBe(204)
  })

  it("refuses malformed JSON and invalid reports with 400 naming the field; source init is reserved", async () => {
    const malformed = await server.fetch("/sessions", post('{"source":'))
    expect(malformed.status).toBe(400)
    expect((await malformed.json()).cause.code).toBe("INVALID_REQUEST")
    for (const [field, body] of [
      ["source", { ...report, source: "init" }],
      ["gpc", { ...report, gpc: "yes" }],
      ["resolution", { ...report, resolution: "maybe" }],
      ["revision", { ...report, revision: undefined }]
    ] as const) {
      const response = await server.fetch("/sessions", post(body))
      expect(response.status, field).toBe(400)
      const error = await response.json()
      expect(error.cause.code).toBe("INVALID_REQUEST")
      expect(error.message, field).toContain(field)
    }
  })
})

describe("session reports from /init", () => {
  const reports: Array<SessionReport> = []
  const server = useServer("sqlite", { manifest, sessions: { onReport: (r) => void reports.push(r) } })
  const throwing = useServer("sqlite", {
    manifest,
    sessions: {
      onReport: () => {
        throw new Error("callback broke")
      }
    }
  })
  const rejecting = useServer("sqlite", {
    manifest,
    sessions: { onReport: () => Promise.reject(new Error("callback rejected")) }
  })
  // A slow callback: its promises settle only when the test says so, after the requests were answered.
  const held: Array<() => void> = []
  const slow = useServer("sqlite", {
    manifest,
    sessions: { onReport: () => new Promise<void>((done) => held.push(done)) }
  })
  const hanging = useServer("sqlite", { manifest, sessions: { onReport: () => new Promise(() => {}) } })

  it("reports each resolution with source init, the revision, the policy and the visitor's inputs", async () => {
    reports.length = 0
    const response = await server.fetch("/init?country=US&region=CA&gpc=1&journey=jrn_1", {
      headers: { "accept-language": "fr", "user-agent": "Visitor/2.0", "x-forwarded-for": "198.51.100.23" }
    })
    const body = await response.json()
    await expect.poll(() => reports.length).toBe(1)
    expect(reports[0]).toMatchObject({
      source: "init",
      revision: body.revision,
      resolution: "matched",
      policy: { id: "us-ca", fingerprint: body.policy.fingerprint, matchedBy: "region", model: "opt-out" },
      country: "US",
      region: "CA",
      language: "fr",
      gpc: true,
      journey: { id: "jrn_1" },
      userAgent: "Visitor/2.0",
      ipAddress: "198.51.100.0"
    })
    reports.length = 0
    await server.fetch("/init?contract=2")
    await expect.poll(() => reports.length).toBe(1)
    expect(reports[0]).toMatchObject({ resolution: "failed", policy: null, country: "" })
  })

  it("sends no report for HEAD requests, prefetches or prerenders", async () => {
    reports.length = 0
    expect((await server.fetch("/init?country=DE", { method: "HEAD" })).status).toBe(200)
    for (const headers of [{ "sec-purpose": "prefetch" }, { "sec-purpose": "prefetch;prerender" }, {
      purpose: "prefetch"
    }]) {
      expect((await server.fetch("/init?country=DE", { headers })).status).toBe(200)
    }
    await server.fetch("/init?country=DE") // a page view: the only report
    // Reports are handed over in request order (each queued before its response is sent), so once
    // the last request's report is here, any report of the earlier ones would be here too.
    await expect.poll(() => reports.length).toBe(1)
    expect(reports).toHaveLength(1)
    expect(reports[0]).toMatchObject({ source: "init", country: "DE" })
  })

  it("a throwing, rejecting, slow or hanging callback never fails or delays /init", async () => {
    held.length = 0
    for (const s of [throwing, rejecting, slow, hanging]) {
      for (let i = 0; i < 5; i++) {
        const response = await s.fetch("/init?country=DE")
        expect(response.status).toBe(200)
        expect((await response.json()).policyResolution.status).toBe("matched")
      }
    }
    // Every answer came while the slow callback's promises were still pending (and the hanging
    // one's never settle): /init does not wait for the callback at all, not even briefly.
    await expect.poll(() => held.length).toBe(5)
    held.splice(0).forEach((settle) => settle())
  })

  it("a failing callback never fails POST /sessions either", async () => {
    const response = await throwing.fetch("/sessions", post(report))
    expect(response.status).toBe(204)
    held.length = 0
    const slowResponse = await slow.fetch("/sessions", post(report))
    expect(slowResponse.status).toBe(204)
    // Answered with the callback's promise still pending.
    await expect.poll(() => held.length).toBe(1)
    held.splice(0).forEach((settle) => settle())
  })
})
