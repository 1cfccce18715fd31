// A small node:http stand-in for the svc backend: /init, /subjects and the script routes, with
// the same wire shapes and the same embedded-defaults line. Used while the real server's /init is
// not available (see backend.ts).
import { readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { bundleFiles } from "../../src/index.js"
import { testGvl, testPolicyRules, testVendors } from "./policy-rules.js"

export interface RecordedRequest {
  method: string
  path: string
  query: Record<string, string>
  headers: IncomingMessage["headers"]
  body: any
}

interface Consent {
  consentId: string
  givenAt: string
  createdAt: string
  preferences: Record<string, boolean>
  receipts: Record<string, { value: boolean; confirmedAt: string }>
  vendorChoice: unknown
  action?: string
  surface?: string
  policySnapshotToken?: string
  runtimePolicySource: string
}

const iso = (t: unknown): string => new Date(typeof t === "number" ? t : String(t)).toISOString()

const resolve = (country: string | undefined, region: string | undefined) => {
  const regionCode = region ? (region.includes("-") ? region : `${country}-${region}`) : undefined
  for (const rule of testPolicyRules) {
    const match = rule.match as { regions?: ReadonlyArray<string>; countries?: ReadonlyArray<string> }
    if (regionCode && match.regions?.includes(regionCode)) return { rule, matchedBy: "region" }
  }
  for (const rule of testPolicyRules) {
    const match = rule.match as { countries?: ReadonlyArray<string> }
    if (country && match.countries?.includes(country)) return { rule, matchedBy: "country" }
  }
  const fallback = testPolicyRules.find((r) => "default" in r.match)!
  return { rule: fallback, matchedBy: "default" }
}

export const startFakeBackend = async (scriptConfig: Record<string, unknown> = {}) => {
  const requests: Array<RecordedRequest> = []
  const subjects = new Map<string, { externalId: string | null; createdAt: string; consents: Array<Consent> }>()
  let counter = 0

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers })
    res.end(body === undefined ? "" : JSON.stringify(body))
  }
  const fail = (res: ServerResponse, status: number, code: string, cors: Record<string, string>) =>
    send(res, status, { message: code, cause: { code } }, cors)

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x")
    let raw = ""
    for await (const chunk of req) raw += chunk
    const body = raw ? JSON.parse(raw) : undefined
    requests.push({ method: req.method ?? "GET", path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body })
    const origin = req.headers.origin
    const cors: Record<string, string> = origin
      ? { "access-control-allow-origin": origin, "access-control-allow-credentials": "true", vary: "Origin" }
      : {}
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        ...cors,
        "access-control-allow-methods": "GET, POST, PATCH",
        "access-control-allow-headers": "content-type",
        "access-control-max-age": "600"
      })
      return res.end()
    }
    const bundle = { "/svc.js": bundleFiles.full, "/svc.headless.js": bundleFiles.headless, "/svc.iab.js": bundleFiles.iab }[
      url.pathname
    ]
    if (bundle !== undefined) {
      const backendURL = `http://${req.headers.host}`
      res.writeHead(200, { "content-type": "application/javascript; charset=utf-8" })
      return res.end(`;window.__SVC_EMBEDDED__=${JSON.stringify({ backendURL, config: scriptConfig })};\n` + readFileSync(bundle, "utf8"))
    }
    if (url.pathname === "/init" && req.method === "GET") {
      const q = url.searchParams
      if (q.get("contract") !== "1") {
        return send(res, 200, { policyResolution: { status: "failed", reason: "unsupported-contract" }, policy: null }, cors)
      }
      const country = q.get("country") ?? undefined
      const { rule, matchedBy } = resolve(country, q.get("region") ?? undefined)
      const gpc = q.get("gpc") === "1" || (q.get("gpc") === null && req.headers["sec-gpc"] === "1")
      const policy = { ...rule, fingerprint: `fp-${rule.id}` }
      const journey = q.get("journey") ? { id: q.get("journey")!, scope: q.get("journeyScope") ?? undefined, stored: q.get("stored") ?? undefined } : null
      return send(
        res,
        200,
        {
          schemaVersion: 1,
          revision: "rev-1",
          hosting: "self-hosted",
          policyResolution: { status: "matched", reason: null, matchedBy, policyId: rule.id, fingerprint: policy.fingerprint, model: rule.model },
          policy,
          location: { country: country ?? null, region: q.get("region") },
          language: "en",
          translations: {},
          gpc,
          appName: null,
          branding: "svc",
          iab: { enabled: true, cmpId: 12 },
          vendors: testVendors,
          vendorListVersion: null,
          ...(rule.model === "iab" ? { gvl: testGvl } : {}),
          policySnapshotToken: `tok.${rule.id}.${Date.now()}`,
          experiment: null,
          journey
        },
        cors
      )
    }
    const subjectPath = /^\/subjects\/([^/]+)$/.exec(url.pathname)
    if (url.pathname === "/subjects" && req.method === "POST") {
      if (!body || !/^sub_[A-Za-z0-9_-]{8,128}$/.test(body.subjectId) || body.type !== "cookie_banner" || !body.preferences) {
        return fail(res, 400, "INVALID_REQUEST", cors)
      }
      const subject = subjects.get(body.subjectId) ?? {
        externalId: (body.externalSubjectId as string | undefined) ?? null,
        createdAt: new Date().toISOString(),
        consents: [] as Array<Consent>
      }
      subjects.set(body.subjectId, subject)
      const givenAt = iso(body.givenAt)
      let consent = subject.consents.find((c) => c.givenAt === givenAt)
      if (!consent) {
        consent = {
          consentId: `cns_${++counter}`,
          givenAt,
          createdAt: new Date().toISOString(),
          preferences: body.preferences,
          receipts: Object.fromEntries(
            Object.entries(body.receipts ?? {}).map(([k, r]: [string, any]) => [k, { value: r.value, confirmedAt: iso(r.confirmedAt) }])
          ),
          vendorChoice: body.vendorChoice ?? null,
          action: body.action,
          surface: body.surface,
          policySnapshotToken: body.policySnapshotToken,
          runtimePolicySource: "snapshot_token"
        }
        subject.consents.push(consent)
      }
      return send(
        res,
        201,
        { subjectId: body.subjectId, consentId: consent.consentId, appliedPreferences: consent.preferences, givenAt, runtimePolicySource: consent.runtimePolicySource },
        cors
      )
    }
    if (subjectPath && req.method === "GET") {
      const id = decodeURIComponent(subjectPath[1]!)
      const subject = subjects.get(id)
      if (!subject) return fail(res, 404, "NOT_FOUND", cors)
      const categories: Record<string, { value: boolean; confirmedAt: string }> = {}
      for (const c of [...subject.consents].sort((a, b) => a.givenAt.localeCompare(b.givenAt))) Object.assign(categories, c.receipts)
      return send(
        res,
        200,
        {
          subject: { id, externalId: subject.externalId, identityProvider: null, verified: false, createdAt: subject.createdAt },
          consents: subject.consents,
          isValid: subject.consents.length > 0,
          subjectChoice: Object.keys(categories).length > 0 ? { categories } : null,
          subjectVendorChoice: null
        },
        cors
      )
    }
    if (subjectPath && req.method === "PATCH") {
      const id = decodeURIComponent(subjectPath[1]!)
      const subject = subjects.get(id)
      if (!subject) return fail(res, 404, "NOT_FOUND", cors)
      subject.externalId = body.externalId
      return send(res, 200, { subject: { id, externalId: body.externalId, identityProvider: body.identityProvider ?? "external", verified: false } }, cors)
    }
    return fail(res, 404, "ROUTE_NOT_FOUND", cors)
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const { port } = server.address() as AddressInfo
  return {
    kind: "fake" as const,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      })
  }
}
