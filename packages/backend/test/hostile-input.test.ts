// The hostile-input suite (docs/adr/0014-hostile-input-property-suite.md): for every route of the
// HttpApi contract (read from SvcApi, so a new route is covered on its own), the script bundles,
// /spec.json, /docs and unknown paths, fast-check sends generated bodies, headers, paths and
// query strings to a real server with API keys, snapshot signing and identity tokens configured.
// Properties: never a 5xx, never a hang, never a stack trace, SQL or file path in a body, every
// error in the spec's shape, no body but JSON accepted on a route with a payload, and the server
// healthy after. Seeded: SVC_FUZZ_SEED reproduces a run, SVC_FUZZ_RUNS sets cases per route.
import { signIdentityToken } from "@svc/backend"
import fc from "fast-check"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cookieSave, newSubjectId } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import {
  contractRoutes,
  describeRequest,
  type HostileRequest,
  rawRoutes,
  requestArbitrary,
  type RouteTarget
} from "./support/hostile-requests.js"
import { manifest } from "./support/policy-manifest.js"
import { rawRequest, sendRaw } from "./support/raw-http.js"
import { type TestServer, useServer } from "./support/server.js"
import { sessionReport } from "./support/session-report.js"

const SEED = Number(process.env.SVC_FUZZ_SEED ?? 20261123)
/** Cases per route on SQLite; PostgreSQL and MySQL run a fifth as many (their errors are what they add). */
const RUNS = Number(process.env.SVC_FUZZ_RUNS ?? 1000)
const REQUEST_TIMEOUT_MS = 10_000

const API_KEY = "hostile-input-api-key-0123456789abcdef"
const IDENTITY = {
  signingKey: "hostile-identity-signing-key-0123456789abcdef",
  issuer: "svc",
  audience: "svc-identity"
}

const bundleDir = mkdtempSync(join(tmpdir(), "svc-hostile-"))
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }))

const bundles = (() => {
  const dir = bundleDir
  const file = (name: string) => {
    const path = join(dir, name)
    writeFileSync(path, `/* ${name} */ window.svc = window.svc || {};\n`)
    return path
  }
  return { full: file("full.js"), headless: file("headless.js"), iab: file("iab.js") }
})()

const SCRIPT_PATHS = ["/svc.js", "/svc.headless.js", "/svc.iab.js"]

/** What a body must never show: stack frames, file paths, SQL, runtime error names, driver codes. */
const LEAKS: ReadonlyArray<RegExp> = [
  /\bat (?:async )?\S+ \(/,
  /\bat file:\/\//,
  /node_modules/,
  /\/work\//,
  /\.(?:ts|js|mjs|cjs):\d+/,
  /\bSELECT\s/,
  /\bINSERT\s/,
  /\bUPDATE\s+\w+\s+SET\b/,
  /\bDELETE\s+FROM\b/,
  /\b(?:RangeError|TypeError|ReferenceError|SqliteError|DatabaseError:|QueryFailedError)\b/,
  /\bER_[A-Z_]{3,}\b/,
  /\bsvc_(?:consents|subjects|legal_documents|migrations)\b/
]

/** Per-route seed: the run's seed mixed with the route's name, so adding a route leaves the others' cases as they were. */
const routeSeed = (label: string) => {
  let hash = SEED | 0
  for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 16777619)
  return hash
}

const clip = (text: string, n = 300) => (text.length > n ? `${text.slice(0, n)}… (${text.length} chars)` : text)

/** Sends one request and checks every property on its answer; throws with the request on a violation. */
const probe = async (
  server: TestServer,
  target: RouteTarget,
  request: HostileRequest,
  statuses: Map<number, number>
) => {
  const headers = new Headers()
  for (const [name, value] of request.headers) headers.append(name, value)
  let response: Response
  let text: string
  try {
    response = await server.fetch(request.url, {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: request.body as BodyInit }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
    })
    text = await response.text()
  } catch (error) {
    throw new Error(
      `no complete answer within ${REQUEST_TIMEOUT_MS} ms (${String(error)}) to ${describeRequest(request)}`,
      { cause: error }
    )
  }
  const fail = (what: string) => {
    throw new Error(`${what}\n  request: ${describeRequest(request)}\n  answer: ${response.status} ${clip(text, 600)}`)
  }
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
  if (response.status >= 500) fail("5xx")
  const document = target.document && response.status < 400
  if (!document) {
    for (const leak of LEAKS) if (leak.test(text)) fail(`body leaks internals (${leak})`)
  }
  if (response.status >= 400 && request.method !== "HEAD") {
    let body: { message?: unknown; cause?: { code?: unknown } } | undefined
    try {
      body = JSON.parse(text)
    } catch {
      fail("error body is not JSON")
    }
    if (typeof body?.message !== "string" || typeof body.cause?.code !== "string")
      fail("error body lacks message or cause.code")
    if (!/^application\/json\b/.test(response.headers.get("content-type") ?? ""))
      fail("error without a JSON content type")
  }
  if (target.payload !== undefined && request.method === target.method && !request.jsonBody && response.status < 400) {
    fail("a body not sent as application/json was accepted")
  }
}

/** The server still answers and still records: GET /status, then a valid save read back. */
const expectHealthy = async (server: TestServer, policySnapshotToken: string) => {
  const status = await server.fetch("/status", { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  expect(status.status).toBe(200)
  const body = cookieSave({ policySnapshotToken, preferences: euPreferences(true) })
  const saved = await server.fetch("/subjects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
  })
  expect(saved.status, await saved.clone().text()).toBe(200)
  const read = await server.fetch(`/subjects/${body.subjectId}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  expect(read.status).toBe(200)
  expect((await read.json()).consents).toHaveLength(1)
}

/** The choice the "eu" rule (DE) offers: the snapshot token from /init?country=DE names it. */
const euPreferences = (granted: boolean) => ({ necessary: true, measurement: granted, marketing: granted })

describe.each(dialects)("hostile input [%s]", (dialect) => {
  const runs = dialect === "sqlite" ? RUNS : Math.max(1, Math.round(RUNS / 5))
  const server = useServer(dialect, {
    apiKeys: [API_KEY],
    policySnapshot: { signingKey: "hostile-snapshot-signing-key-0123456789abcdef" },
    identityToken: { signingKey: IDENTITY.signingKey },
    trustedOrigins: ["shop.example"],
    manifest,
    script: { bundles },
    sessions: { onReport: () => {} },
    version: "9.9.9"
  })
  const knownIds: Array<string> = []
  let snapshotToken = ""
  /** Bodies that pass decoding and reach the services: real tokens, known subjects, a published document. */
  let examples: Record<string, fc.Arbitrary<unknown>> = {}

  beforeAll(async () => {
    console.info(
      `[hostile-input ${dialect}] SVC_FUZZ_SEED=${SEED} SVC_FUZZ_RUNS=${runs} (set either to reproduce or widen a run)`
    )
    const init = await (await server.fetch("/init?country=DE")).json() as { policySnapshotToken?: string }
    expect(init.policySnapshotToken).toBeTypeOf("string")
    snapshotToken = init.policySnapshotToken!
    for (let i = 0; i < 4; i++) {
      const body = cookieSave({ policySnapshotToken: snapshotToken, preferences: euPreferences(true) })
      const saved = await server.fetch("/subjects", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      expect(saved.status, await saved.clone().text()).toBe(200)
      knownIds.push(body.subjectId as string)
    }
    const published = await server.fetch("/legal-documents/privacy_policy/current", {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ version: "1", hash: "hash-1", effectiveDate: "2026-01-01T00:00:00Z" })
    })
    expect(published.status).toBe(200)
    const identityTokens = await Promise.all(
      ["user-1", "user-2"].map((externalId) => signIdentityToken(IDENTITY, { externalId }))
    )
    const subjectId = fc.oneof(fc.constantFrom(...knownIds), fc.constant(null).map(() => newSubjectId()))
    const identity = fc.option(fc.tuple(fc.constantFrom("user-1", "user-2"), fc.constantFrom(...identityTokens)), {
      nil: undefined
    })
    examples = {
      "POST /subjects": fc.oneof(
        fc.record({ subjectId, identity, now: fc.integer({ min: -3_600_000, max: 60_000 }), granted: fc.boolean() })
          .map(({ granted, identity, now, subjectId }) => ({
            type: "cookie_banner",
            domain: "example.com",
            subjectId,
            givenAt: Date.now() + now,
            preferences: euPreferences(granted),
            policySnapshotToken: snapshotToken,
            ...(identity === undefined ? {} : { externalSubjectId: identity[0], identityToken: identity[1] }),
            vendorChoice: { grants: { analytics: granted }, confirmedAt: Date.now() }
          })),
        fc.record({ subjectId, type: fc.constantFrom("privacy_policy", "dpa", "terms_and_conditions_eu") }).map((
          { subjectId, type }
        ) => ({
          type,
          domain: "example.com",
          subjectId,
          givenAt: new Date().toISOString(),
          policyHash: "hash-1"
        }))
      ),
      "PATCH /subjects/:id": fc.tuple(
        fc.constantFrom("user-1", "user-2"),
        fc.constantFrom(...identityTokens, undefined)
      ).map(([externalId, identityToken]) => ({
        externalId,
        ...(identityToken === undefined ? {} : { identityToken })
      })),
      "PUT /legal-documents/:type/current": fc.record({
        version: fc.constantFrom("1", "2"),
        hash: fc.constantFrom("hash-1", "hash-2")
      }).map((r) => ({
        ...r,
        effectiveDate: "2026-01-01T00:00:00Z"
      })),
      "POST /sessions": fc.constant(sessionReport)
    }
  })

  const targets = [...contractRoutes(), ...rawRoutes(SCRIPT_PATHS)]

  it("covers every route of the contract", () => {
    expect(targets.filter((t) => !t.document).length).toBeGreaterThanOrEqual(12)
  })

  for (const target of targets) {
    it(`${target.label}: never a 5xx, a hang, a leak or a form accepted; healthy after`, async () => {
      const example = examples[target.label]
      const aimed: RouteTarget = example === undefined || target.payload === undefined
        ? target
        : { ...target, payload: fc.oneof({ weight: 1, arbitrary: target.payload }, { weight: 2, arbitrary: example }) }
      const statuses = new Map<number, number>()
      const cpu = process.cpuUsage()
      await fc.assert(
        fc.asyncProperty(
          requestArbitrary(aimed, API_KEY, knownIds),
          (request) => probe(server, target, request, statuses)
        ),
        { seed: routeSeed(target.label), numRuns: runs }
      )
      // What the cases reached, so a generator that stops getting past decoding shows in the log.
      const tally = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`).join(" ")
      // CPU time, not wall time: client and server share this process, and a busy machine stretches wall time.
      const used = process.cpuUsage(cpu)
      const cpuMs = (used.user + used.system) / 1000 / runs
      console.info(
        `[hostile-input ${dialect}] ${target.label}: ${runs} cases, ${cpuMs.toFixed(2)} ms CPU each: ${tally}`
      )
      await expectHealthy(server, snapshotToken)
    }, 30_000 + runs * 60)
  }

  it(
    "raw HTTP (bytes in the target, broken framing, odd versions): never a 5xx, a hang or a leak; healthy after",
    async () => {
      const statuses = new Map<string, number>()
      await fc.assert(
        fc.asyncProperty(rawRequest, async (raw) => {
          const answer = await sendRaw(server.url(), raw, REQUEST_TIMEOUT_MS)
          const key = String(answer.status ?? "closed")
          statuses.set(key, (statuses.get(key) ?? 0) + 1)
          const fail = (what: string) => {
            throw new Error(
              `${what}\n  request: ${JSON.stringify(clip(Buffer.from(raw).toString("latin1"), 400))}\n  answer: ${
                clip(answer.text, 600)
              }`
            )
          }
          if (answer.hung) fail(`no answer and no close within ${REQUEST_TIMEOUT_MS} ms`)
          if (answer.status !== undefined && answer.status >= 500) fail("5xx")
          for (const leak of LEAKS) if (leak.test(answer.text)) fail(`answer leaks internals (${leak})`)
        }),
        { seed: routeSeed("raw HTTP"), numRuns: Math.max(1, Math.round(runs / 2)) }
      )
      console.info(`[hostile-input ${dialect}] raw HTTP: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(" ")}`)
      await expectHealthy(server, snapshotToken)
    },
    30_000 + runs * 60
  )
})
