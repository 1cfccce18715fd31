import { Reactivity } from "@effect/experimental"
import { SqlClient, Statement } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { InitHeaders } from "@svc/api"
import { startServer } from "@svc/server"
import { Effect, Layer, Stream } from "effect"
import { decodeJwt, decodeProtectedHeader, jwtVerify } from "jose"
import { afterAll, beforeAll } from "vitest"
import { COUNTRY_HEADERS, REGION_HEADERS } from "../src/http/location.js"
import { manifest } from "./support/policy-manifest.js"
import { useServer } from "./support/server.js"

const SIGNING_KEY = "policy-init-test-signing-key-0123456789abcdef"

interface Init {
  revision: string
  hosting: string
  policyResolution: {
    status: string
    reason: string | null
    matchedBy: string | null
    policyId: string | null
    fingerprint: string | null
    model: string | null
  }
  policy: { id: string; fingerprint: string; translationProfile?: string } | null
  location: { country: string | null; region: string | null }
  language: string
  translations: Record<string, any>
  gpc: boolean
  experiment: { id: string; arm: string } | null
  journey: { id?: string; scope?: string; stored?: string } | null
  gvl?: unknown
  policySnapshotToken?: string
}

// /init never touches the database (a test below proves it): SQLite is enough.
describe("GET /init", () => {
  const server = useServer("sqlite", {
    manifest,
    policySnapshot: { signingKey: SIGNING_KEY, ttlSeconds: 600 },
    trustedOrigins: ["app.example.com"]
  })
  const init = async (query: string, headers: Record<string, string> = {}) => {
    const response = await server.fetch(`/init${query}`, { headers })
    expect(response.status).toBe(200)
    return (await response.json()) as Init
  }
  const matched = async (query: string, headers: Record<string, string> = {}) => {
    const body = await init(query, headers)
    return [body.policyResolution.policyId, body.policyResolution.matchedBy]
  }

  it.effect("answers through the derived client with the InitResponse shape", () =>
    Effect.gen(function*() {
      const client = yield* server.client
      const body = yield* client.policy.init({ urlParams: { contract: "1", country: "DE", v: "3.1.0" }, headers: {} })
      expect(body.policyResolution).toEqual({
        status: "matched",
        reason: null,
        matchedBy: "country",
        policyId: "eu",
        fingerprint: body.policy!.fingerprint,
        model: "opt-in",
        locationSource: "override"
      })
      expect(body.hosting).toBe("self-hosted")
      expect(body.location).toEqual({ country: "DE", region: null })
      expect(body.vendors).toEqual(manifest.vendors)
      expect(body.iab).toEqual(manifest.iab)
      expect(typeof body.policySnapshotToken).toBe("string")
    }))

  it("matches region, then country, then fallback (country unknown), then default; first rule wins in a level", async () => {
    expect(await matched("?country=US&region=CA")).toEqual(["us-ca", "region"])
    expect(await matched("?country=US")).toEqual(["eu", "country"])
    expect(await matched("?country=DE&region=BY")).toEqual(["eu-shadow", "region"])
    expect(await matched("?country=DE")).toEqual(["eu", "country"]) // eu and eu-shadow both list DE: eu comes first
    expect(await matched("?country=DE&region=HE")).toEqual(["eu", "country"])
    expect(await matched("?country=JP")).toEqual(["rest", "default"])
    expect(await matched("")).toEqual(["unknown", "fallback"])
  })

  it("reads the query first and the header second; an unusable value counts as absent", async () => {
    expect(await matched("?country=DE", { "x-svc-country": "FR" })).toEqual(["eu", "country"])
    expect(await matched("", { "x-svc-country": "FR" })).toEqual(["fr-iab", "country"])
    expect(await matched("?country=Germany", { "x-svc-country": "fr" })).toEqual(["fr-iab", "country"])
    expect(await matched("", { "x-svc-country": "US", "x-svc-region": "CA" })).toEqual(["us-ca", "region"])
    expect(await matched("?region=US-CA")).toEqual(["us-ca", "region"])
    expect(await matched("?country=US&region=US-CA")).toEqual(["us-ca", "region"])
    // a US-CA region with another country is ignored
    expect(await matched("?country=DE&region=US-CA")).toEqual(["eu", "country"])
  })

  it("locates the visitor from the usual edge headers when no override is given", async () => {
    expect(await matched("", { "cf-ipcountry": "FR" })).toEqual(["fr-iab", "country"])
    expect(await matched("", { "x-vercel-ip-country": "US", "x-vercel-ip-country-region": "CA" })).toEqual(["us-ca",
      "region"])
    expect(await matched("", { "cloudfront-viewer-country": "US", "cloudfront-viewer-country-region": "CA" })).toEqual([
      "us-ca",
      "region"
    ])
    expect(await matched("", { "cf-ipcountry": "XX" })).toEqual(["unknown", "fallback"])
    // overrides beat the edge; an override region pairs with the edge country
    expect(await matched("?country=JP", { "cf-ipcountry": "FR" })).toEqual(["rest", "default"])
    expect(await matched("?region=CA", { "cf-ipcountry": "US" })).toEqual(["us-ca", "region"])
    const body = await init("", { "x-vercel-ip-country": "us", "x-vercel-ip-country-region": "ca" })
    expect(body.location).toEqual({ country: "US", region: "CA" })
  })

  it("tells failures apart: unsupported contract, from the query or the header", async () => {
    for (const [query, headers] of [["?contract=2", {}], ["?contract=abc&country=DE", {}], ["", {
      "x-svc-policy-contract": "2"
    }]] as const) {
      const body = await init(query, headers)
      expect(body.policyResolution, query).toEqual({
        status: "failed",
        reason: "unsupported-contract",
        matchedBy: null,
        policyId: null,
        fingerprint: null,
        model: null,
        locationSource: query.includes("country") ? "override" : "none"
      })
      expect(body.policy).toBeNull()
      expect(body.policySnapshotToken).toBeUndefined()
    }
    expect(await matched("?contract=1&country=DE", { "x-svc-policy-contract": "2" })).toEqual(["eu", "country"])
    expect(await matched("?country=DE")).toEqual(["eu", "country"]) // no contract sent: read as contract 1
  })

  it("negotiates the language from Accept-Language, with the rule's translation profile laid over it", async () => {
    const de = await init("?country=DE", { "accept-language": "de-AT,de;q=0.9,en;q=0.5" })
    expect(de.language).toBe("de")
    expect(de.translations.banner.title).toBe("Datenschutz bei uns")
    expect(de.translations.banner.description).toBe("Streng nach DSGVO.")
    expect(de.translations.dialog.save).toBe("Auswahl speichern")
    expect(de.translations).not.toHaveProperty("profiles")
    expect((await init("?country=JP", { "accept-language": "ja, fr;q=0.4, de;q=0.8" })).language).toBe("de")
    expect((await init("?country=JP", { "accept-language": "ja" })).language).toBe("en")
    expect((await init("?country=JP", { "accept-language": "PT-br" })).language).toBe("pt-BR")
    expect((await init("?country=JP", { "accept-language": "de;q=0, fr" })).language).toBe("fr")
    expect((await init("?country=JP")).language).toBe("en")
    const fr = await init("?country=JP", { "accept-language": "fr-CH" })
    expect(fr.translations.banner.acceptAll).toBe("Tout accepter")
    expect(fr.translations.banner.description).not.toContain("GDPR") // no profile on the default rule
  })

  it("reads GPC from gpc, x-svc-gpc and Sec-GPC; other values are ignored; a 0 cannot switch off Sec-GPC", async () => {
    const gpc = async (query: string, headers: Record<string, string> = {}) =>
      (await init(`?country=JP${query}`, headers)).gpc
    expect(await gpc("")).toBe(false)
    expect(await gpc("&gpc=1")).toBe(true)
    expect(await gpc("", { "x-svc-gpc": "1" })).toBe(true)
    expect(await gpc("", { "sec-gpc": "1" })).toBe(true)
    expect(await gpc("&gpc=yes")).toBe(false)
    expect(await gpc("&gpc=yes", { "x-svc-gpc": "1" })).toBe(true)
    expect(await gpc("&gpc=0", { "x-svc-gpc": "1" })).toBe(false)
    expect(await gpc("&gpc=0", { "sec-gpc": "1" })).toBe(true)
  })

  it("echoes the journey, under its names and the legacy alpha.8/alpha.9 names", async () => {
    expect((await init("?country=DE&journey=jrn_1&journeyScope=checkout&stored=1")).journey).toEqual({
      id: "jrn_1",
      scope: "checkout",
      stored: "1"
    })
    expect((await init("?country=DE&svcJourney=jrn_2&svcJourneyScope=s&svcStored=0")).journey).toEqual({
      id: "jrn_2",
      scope: "s",
      stored: "0"
    })
    expect((await init("?country=DE&journey=new&svcJourney=old")).journey).toEqual({ id: "new" })
    expect((await init("?country=DE")).journey).toBeNull()
    expect((await init(`?country=DE&journey=${"x".repeat(200)}`)).journey).toBeNull()
  })

  it("reads the experiment arm as <id>=<arm>, each part URI-encoded, from the query or the header", async () => {
    const q = new URLSearchParams({
      country: "DE",
      experiment: `${encodeURIComponent("banner test")}=${encodeURIComponent("b=2")}`
    })
    expect((await init(`?${q}`)).experiment).toEqual({ id: "banner test", arm: "b=2" })
    expect((await init("?country=DE", { "x-svc-experiment": "exp1=control" })).experiment).toEqual({
      id: "exp1",
      arm: "control"
    })
    expect((await init("?country=DE&experiment=exp1=a", { "x-svc-experiment": "exp1=b" })).experiment).toEqual({
      id: "exp1",
      arm: "a"
    })
    expect((await init("?country=DE&experiment=noarm")).experiment).toBeNull()
    expect((await init("?country=DE&experiment=%E0%A4%A=x")).experiment).toBeNull()
  })

  it("reads a reserved name the client did not set from the init URL; a name given twice is refused, not guessed", async () => {
    // e.g. a backend URL configured as `.../init?country=FR` with a client that sends only v and contract
    expect(await matched("?country=FR&v=3.2.0&contract=1")).toEqual(["fr-iab", "country"])
    const response = await server.fetch("/init?country=FR&country=DE")
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body.cause.code).toBe("INVALID_REQUEST")
    expect(body.message).toContain("country")
  })

  it("answers with Cache-Control: no-store and a Vary naming every header it reads", async () => {
    const response = await server.fetch("/init?country=DE", { headers: { origin: "https://evil.example" } })
    expect(response.headers.get("cache-control")).toBe("no-store")
    const vary = response.headers.get("vary")!.split(",").map((name) => name.trim().toLowerCase())
    // The spec's header inputs, the edge's location headers, and Origin (CORS), written out ...
    const spec = ["accept-language", "sec-gpc", "x-svc-version", "x-svc-policy-contract", "x-svc-country",
      "x-svc-region", "x-svc-gpc", "x-svc-experiment", "x-svc-vendors"]
    const geo = ["cf-ipcountry", "x-vercel-ip-country", "cloudfront-viewer-country", "x-country-code",
      "fastly-geo-country", "x-vercel-ip-country-region", "cloudfront-viewer-country-region", "cf-region-code",
      "x-region-code"]
    // ... and the declarations the reading code uses, so a header added there is seen here too.
    const declared = [...Object.keys(InitHeaders.fields), ...COUNTRY_HEADERS, ...REGION_HEADERS]
    expect(vary).toEqual(expect.arrayContaining([...spec, ...geo, ...declared, "origin"]))
    expect(response.headers.get("content-type")).toContain("application/json")
  })

  it("reads the location from every header named in Vary (each one alone changes the answer)", async () => {
    const vary = (await server.fetch("/init")).headers.get("vary")!.split(",").map((name) => name.trim().toLowerCase())
    for (const name of COUNTRY_HEADERS) {
      expect(vary).toContain(name)
      expect((await init("", { [name]: "FR" })).location).toEqual({ country: "FR", region: null })
    }
    for (const name of REGION_HEADERS) {
      expect(vary).toContain(name)
      expect((await init("", { "cf-ipcountry": "US", [name]: "CA" })).location).toEqual({ country: "US", region: "CA" })
    }
  })

  it("answers every origin: * without credentials, a trusted origin with its own and credentials", async () => {
    const untrusted = await server.fetch("/init?country=DE", { headers: { origin: "https://evil.example" } })
    expect(untrusted.status).toBe(200)
    expect(untrusted.headers.get("access-control-allow-origin")).toBe("*")
    expect(untrusted.headers.get("access-control-allow-credentials")).toBeNull()
    const trusted = await server.fetch("/init?country=DE", { headers: { origin: "https://app.example.com" } })
    expect(trusted.headers.get("access-control-allow-origin")).toBe("https://app.example.com")
    expect(trusted.headers.get("access-control-allow-credentials")).toBe("true")
  })

  it("issues a signed policy snapshot token naming the matched rule, with issuer, audience and lifetime", async () => {
    const body = await init("?country=US&region=CA&gpc=1")
    const token = body.policySnapshotToken!
    expect(decodeProtectedHeader(token).alg).toBe("HS256")
    const { payload } = await jwtVerify(token, new TextEncoder().encode(SIGNING_KEY), {
      issuer: "svc",
      audience: "svc-policy"
    })
    expect(payload).toMatchObject({
      pid: "us-ca",
      fp: body.policy!.fingerprint,
      rev: body.revision,
      cc: "US",
      rg: "CA",
      gpc: true
    })
    expect(payload.exp! - payload.iat!).toBe(600)
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(60)
    const unknown = decodeJwt((await init("")).policySnapshotToken!)
    expect(unknown).toMatchObject({ pid: "unknown", cc: null, rg: null, gpc: false })
  })

  it("adds hosting and the revision of /manifest", async () => {
    const manifestBody = await (await server.fetch("/manifest")).json()
    const body = await init("?country=DE")
    expect(body.hosting).toBe("self-hosted")
    expect(body.revision).toBe(manifestBody.revision)
  })
})

describe("GET /init resolutions without fallback or default, tenant audience, no signing", () => {
  const strict = useServer("sqlite", {
    tenantId: "acme",
    policySnapshot: { signingKey: SIGNING_KEY },
    manifest: { policyRules: [{ id: "eu", match: { countries: ["DE"] }, model: "opt-in", categories: ["marketing"] }] }
  })
  const defaultOnly = useServer("sqlite", {
    manifest: { policyRules: [{ id: "world", match: { default: true }, model: "none", categories: [] }] }
  })
  const empty = useServer("sqlite", { policySnapshot: { signingKey: SIGNING_KEY } })
  const get = async (server: typeof strict, query: string) =>
    (await (await server.fetch(`/init${query}`)).json()) as Init

  it("no-match when the country is known but no rule applies; insufficient-inputs when it is unknown", async () => {
    const none = await get(strict, "?country=JP")
    expect(none.policyResolution).toMatchObject({ status: "no-match", reason: null, policyId: null })
    expect(none.policy).toBeNull()
    expect(none.policySnapshotToken).toBeUndefined()
    const unknown = await get(strict, "")
    expect(unknown.policyResolution).toMatchObject({ status: "failed", reason: "insufficient-inputs" })
    expect(unknown.policySnapshotToken).toBeUndefined()
  })

  it("the default rule applies when the country is unknown and there is no fallback rule", async () => {
    const body = await get(defaultOnly, "")
    expect(body.policyResolution).toMatchObject({
      status: "matched",
      matchedBy: "default",
      policyId: "world",
      model: "none"
    })
    expect(body.policySnapshotToken).toBeUndefined() // signing not configured
  })

  it("unconfigured when the manifest has no rules", async () => {
    const body = await get(empty, "?country=DE")
    expect(body.policyResolution).toMatchObject({ status: "unconfigured", reason: null })
    expect(body.translations.banner.title).toBe("We value your privacy")
    expect(body.policySnapshotToken).toBeUndefined()
  })

  it("signs for the tenant's audience", async () => {
    const body = await get(strict, "?country=DE")
    const { payload } = await jwtVerify(body.policySnapshotToken!, new TextEncoder().encode(SIGNING_KEY), {
      audience: "svc-policy:acme"
    })
    expect(payload.pid).toBe("eu")
  })
})

describe("/manifest and /init agree", () => {
  const server = useServer("sqlite", { manifest })

  /** The documented algorithm, run by a host on the cached manifest. */
  const resolveFromManifest = (
    packs: ReadonlyArray<
      { id: string; match: { countries?: Array<string>; regions?: Array<string>; fallback?: true; default?: true } }
    >,
    country: string | null,
    region: string | null
  ) => {
    if (country !== null && region !== null) {
      const r = packs.find((p) => p.match.regions?.includes(`${country}-${region}`))
      if (r) return { id: r.id, matchedBy: "region" }
    }
    if (country !== null) {
      const c = packs.find((p) => p.match.countries?.includes(country))
      if (c) return { id: c.id, matchedBy: "country" }
    } else {
      const f = packs.find((p) => p.match.fallback)
      if (f) return { id: f.id, matchedBy: "fallback" }
    }
    const d = packs.find((p) => p.match.default)
    return d ? { id: d.id, matchedBy: "default" } : null
  }

  const cases: ReadonlyArray<[string | null, string | null, string]> = [
    ["US", "CA", "en"],
    ["US", "NY", "de"],
    ["DE", "BY", "de"],
    ["DE", null, "de"],
    ["FR", null, "fr"],
    ["JP", null, "pt-BR"],
    [null, null, "fr"]
  ]

  it.each(cases)("country %s region %s language %s", async (country, region, language) => {
    const m = await (await server.fetch(`/manifest?language=${language}`)).json()
    const q = new URLSearchParams({ ...(country ? { country } : {}), ...(region ? { region } : {}) })
    const i = (await (await server.fetch(`/init?${q}`, { headers: { "accept-language": language } })).json()) as Init
    const expected = resolveFromManifest(m.policyPacks, country, region)!
    expect(i.policyResolution.policyId).toBe(expected.id)
    expect(i.policyResolution.matchedBy).toBe(expected.matchedBy)
    const pack = m.policyPacks.find((p: { id: string }) => p.id === expected.id)
    expect(i.policy).toEqual(pack)
    expect(i.policyResolution.fingerprint).toBe(pack.fingerprint)
    expect(i.revision).toBe(m.revision)
    expect(i.language).toBe(language)
    // /init's table is the manifest's slice with the rule's profile laid over it
    const { profiles, ...base } = m.translations[language]
    const overlay = pack.translationProfile ? profiles?.[pack.translationProfile] : undefined
    const expectedTranslations = overlay ? { ...base, banner: { ...base.banner, ...overlay.banner } } : base
    expect(i.translations).toEqual(expectedTranslations)
  })
})

describe("GET /init does no database I/O", () => {
  let running: Awaited<ReturnType<typeof startServer>> | undefined
  let touched = 0
  beforeAll(async () => {
    // An SqlClient whose every connection use is counted and dies: /init and /manifest must not notice it.
    const refuse = () => {
      touched++
      return Effect.die(new Error("database used"))
    }
    const connection = {
      execute: refuse,
      executeRaw: refuse,
      executeValues: refuse,
      executeUnprepared: refuse,
      executeStream: () => Stream.die(new Error("database used"))
    }
    const refusing = Layer.effect(
      SqlClient.SqlClient,
      SqlClient.make({
        acquirer: Effect.sync(() => {
          touched++
          return connection
        }),
        compiler: Statement.makeCompilerSqlite(),
        spanAttributes: []
      })
    ).pipe(Layer.provide(Reactivity.layer))
    running = await startServer(
      {
        database: { layer: refusing },
        manifest,
        policySnapshot: { signingKey: SIGNING_KEY },
        observability: { requests: "none" }
      },
      { port: 0, host: "127.0.0.1", migrate: false }
    )
  })
  afterAll(async () => {
    await running?.close()
  })

  it("answers /init and /manifest with a database that refuses every query", async () => {
    const before = touched
    for (const query of ["?country=DE", "?country=US&region=CA", "", "?contract=2"]) {
      const response = await fetch(`${running!.url}/init${query}`)
      expect(response.status).toBe(200)
    }
    expect((await fetch(`${running!.url}/manifest`)).status).toBe(200)
    expect(touched).toBe(before)
  })
})
