import { describe, expect, it } from "@effect/vitest"
import { svcInstance } from "@svc/backend"
import { Effect } from "effect"
import { manifest, policyRules } from "./support/policy-manifest.js"
import { useServer } from "./support/server.js"
import { problemsOf } from "./support/config-problems.js"

// /manifest never touches the database: SQLite is enough.

const IDENTITY = { "accept-encoding": "identity" }

describe("GET /manifest", () => {
  const server = useServer("sqlite", { manifest, manifestCache: { sMaxAge: 60, staleWhileRevalidate: 600 } })
  const managed = useServer("sqlite", { manifest, hosting: "managed" })
  const defaults = useServer("sqlite", { manifest: { policyRules: [] } })

  it.effect("returns the manifest through the derived client: revision, hosting, rules with fingerprints", () =>
    Effect.gen(function*() {
      const client = yield* server.client
      const result = yield* client.policy.manifest({ urlParams: {}, headers: {} })
      expect(result).toBeDefined()
      const body = result!
      expect(body.schemaVersion).toBe(1)
      expect(body.revision).toMatch(/^[A-Za-z0-9_-]{22}$/)
      expect(body.hosting).toBe("self-hosted")
      expect(body.appName).toBe("Policy tests")
      expect(body.policyPacks.map((p) => p.id)).toEqual(policyRules.map((r) => r.id))
      for (const pack of body.policyPacks) expect(pack.fingerprint).toMatch(/^[A-Za-z0-9_-]{22}$/)
      expect(body.languages).toEqual(["en", "de", "fr", "pt-BR"])
      expect(Object.keys(body.translations).sort()).toEqual(["de", "en", "fr", "pt-BR"])
      expect(body.vendors).toEqual(manifest.vendors)
      expect(body.vendorListVersion).toBe("2025-10")
    }))

  it("applies the rule defaults it publishes", async () => {
    const body = await (await server.fetch("/manifest")).json()
    const rest = body.policyPacks.find((p: { id: string }) => p.id === "rest")
    expect(rest).toMatchObject({
      prompt: "banner",
      preselected: [],
      validityDays: 365,
      gpcDenies: ["marketing"],
      proof: { storeIp: true, storeUserAgent: true }
    })
    const eu = body.policyPacks.find((p: { id: string }) => p.id === "eu")
    expect(eu.gpcDenies).toEqual([])
    expect(eu.translationProfile).toBe("strict")
  })

  it("sends an ETag and public cache headers from manifestCache", async () => {
    // Identity: each content coding has its own ETag (test/compression.test.ts).
    const response = await server.fetch("/manifest", { headers: IDENTITY })
    const body = await response.json()
    expect(response.headers.get("etag")).toBe(`"${body.revision}"`)
    expect(response.headers.get("cache-control")).toBe("public, max-age=0, s-maxage=60, stale-while-revalidate=600")
    const dflt = await defaults.fetch("/manifest")
    expect(dflt.headers.get("cache-control")).toBe("public, max-age=0, s-maxage=300, stale-while-revalidate=86400")
  })

  it("answers a matching If-None-Match with 304 and no body, weak or in a list", async () => {
    const etag = (await server.fetch("/manifest", { headers: IDENTITY })).headers.get("etag")!
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const response = await server.fetch("/manifest", { headers: { ...IDENTITY, "if-none-match": ifNoneMatch } })
      expect(response.status, ifNoneMatch).toBe(304)
      expect(response.headers.get("etag")).toBe(etag)
      expect(response.headers.get("cache-control")).toContain("s-maxage=60")
      expect(await response.text()).toBe("")
    }
    const stale = await server.fetch("/manifest", { headers: { "if-none-match": '"stale"' } })
    expect(stale.status).toBe(200)
  })

  it.effect("the derived client sees the 304 as an empty success", () =>
    Effect.gen(function*() {
      const client = yield* server.client
      const first = yield* client.policy.manifest({ urlParams: {}, headers: {} })
      const again = yield* client.policy.manifest({
        urlParams: {},
        headers: { "if-none-match": `"${first!.revision}"` }
      })
      expect(again).toBeUndefined()
    }))

  it("slices translations with ?language=, with its own ETag and English fallback filled in", async () => {
    const whole = await (await server.fetch("/manifest")).json()
    const response = await server.fetch("/manifest?language=de", { headers: IDENTITY })
    const de = await response.json()
    expect(Object.keys(de.translations)).toEqual(["de"])
    expect(de.translations.de.banner.title).toBe("Datenschutz bei uns")
    expect(de.translations.de.dialog.save).toBe("Auswahl speichern")
    expect(de.translations).toEqual({ de: whole.translations.de })
    expect(de.revision).toBe(whole.revision)
    expect(response.headers.get("etag")).toBe(`"${whole.revision}.de"`)
    // A language without its own texts falls back key by key: pt-BR has one custom key, the rest is English.
    const pt = await (await server.fetch("/manifest?language=pt-BR")).json()
    expect(pt.translations["pt-BR"].banner.title).toBe("Sua privacidade")
    expect(pt.translations["pt-BR"].banner.acceptAll).toBe("Accept all")
    // A regional variant gets its language; an unpublished language gets the default.
    expect(Object.keys((await (await server.fetch("/manifest?language=fr-CA")).json()).translations)).toEqual(["fr"])
    expect(Object.keys((await (await server.fetch("/manifest?language=ja")).json()).translations)).toEqual(["en"])
  })

  it("ships English, German and French banner texts", async () => {
    const body = await (await defaults.fetch("/manifest")).json()
    expect(body.translations.en.banner.title).toBe("We value your privacy")
    expect(body.translations.de.banner.acceptAll).toBe("Alle akzeptieren")
    expect(body.translations.fr.banner.rejectAll).toBe("Tout refuser")
  })

  it("refuses a malformed ?language= with 400 INVALID_REQUEST", async () => {
    const response = await server.fetch("/manifest?language=NOT_A_LANGUAGE")
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body.cause.code).toBe("INVALID_REQUEST")
    expect(body.message).toContain("language")
  })

  it("reports hosting and changes the revision with it; carries no visitor data", async () => {
    const self = await (await server.fetch("/manifest")).json()
    const response = await managed.fetch("/manifest", {
      headers: { "cf-ipcountry": "DE", "accept-language": "de", "sec-gpc": "1" }
    })
    const body = await response.json()
    expect(body.hosting).toBe("managed")
    expect(body.revision).not.toBe(self.revision)
    for (const key of ["location", "gpc", "policyResolution", "policySnapshotToken", "language", "journey"])
      expect(body).not.toHaveProperty(key)
    // The same document whatever the visitor sends.
    expect(await (await managed.fetch("/manifest")).json()).toEqual(body)
  })

  it("an empty manifest is published too", async () => {
    const body = await (await defaults.fetch("/manifest")).json()
    expect(body.policyPacks).toEqual([])
    expect(body.iab).toBeNull()
    expect(body.appName).toBeNull()
    expect(body.branding).toBe("svc")
  })
})

describe("fingerprints and revision", () => {
  const base = { id: "a", match: { default: true }, model: "opt-in", categories: ["measurement", "marketing"] } as const
  const variants = useServer("sqlite", {
    manifest: {
      policyRules: [
        base,
        // same behaviour: other id, other match, categories reordered, defaults written out
        {
          id: "b",
          match: { countries: ["DE"] },
          model: "opt-in",
          categories: ["marketing", "measurement"],
          prompt: "banner",
          preselected: [],
          validityDays: 365,
          gpcDenies: [],
          proof: { storeIp: true, storeUserAgent: true }
        },
        { ...base, id: "c", match: { countries: ["FR"] }, validityDays: 180 },
        { ...base, id: "d", match: { countries: ["IT"] }, categories: ["measurement"] },
        { ...base, id: "e", match: { countries: ["ES"] }, model: "opt-out" },
        { ...base, id: "f", match: { countries: ["PT"] }, proof: { storeIp: false } },
        { ...base, id: "g", match: { countries: ["NL"] }, gpcDenies: ["marketing"] }
      ]
    }
  })
  const reworded = useServer("sqlite", {
    manifest: { policyRules: [base], customTranslations: { en: { banner: { title: "Changed" } } } }
  })
  const same = useServer("sqlite", { manifest: { policyRules: [base] } })
  const sameAgain = useServer("sqlite", { manifest: { policyRules: [{ ...base }] } })

  it("hashes a rule's behaviour, not its id, match or category order", async () => {
    const packs: Array<{ id: string; fingerprint: string }> =
      (await (await variants.fetch("/manifest")).json()).policyPacks
    const fp = Object.fromEntries(packs.map((p) => [p.id, p.fingerprint]))
    expect(fp.b).toBe(fp.a)
    for (const id of ["c", "d", "e", "f", "g"]) expect(fp[id], id).not.toBe(fp.a)
    expect(new Set(["c", "d", "e", "f", "g"].map((id) => fp[id])).size).toBe(5)
  })

  it("is stable across instances; texts change the revision but not the fingerprint", async () => {
    const one = await (await same.fetch("/manifest")).json()
    const two = await (await sameAgain.fetch("/manifest")).json()
    const three = await (await reworded.fetch("/manifest")).json()
    expect(two.revision).toBe(one.revision)
    expect(two.policyPacks[0].fingerprint).toBe(one.policyPacks[0].fingerprint)
    expect(three.revision).not.toBe(one.revision)
    expect(three.policyPacks[0].fingerprint).toBe(one.policyPacks[0].fingerprint)
  })
})

describe("manifest validation when the instance is built", () => {
  const database = { dialect: "sqlite", url: ":memory:" } as const
  const manifestProblems = (manifest: unknown) => problemsOf({ database, manifest })

  it("lists every problem in one error: duplicate ids, two defaults, two fallbacks, dangling references", () => {
    const issues = manifestProblems({
      policyRules: [
        { id: "a", match: { default: true }, model: "opt-in", categories: ["marketing"], preselected: ["measurement"] },
        { id: "a", match: { default: true }, model: "opt-out", categories: ["marketing"] },
        { id: "b", match: { fallback: true }, model: "opt-in", categories: [], translationProfile: "nope" },
        { id: "c", match: { fallback: true }, model: "iab", categories: [] },
        { id: "d", match: {}, model: "none", categories: [] }
      ]
    })
    const text = issues.join("\n")
    expect(text).toContain('policyRules[1].id: duplicate id "a"')
    expect(text).toContain("2 rules have match.default")
    expect(text).toContain("2 rules have match.fallback")
    expect(text).toContain('policyRules[0].preselected: "measurement" is not one of the rule\'s categories')
    expect(text).toContain('policyRules[2].translationProfile: no translation set "nope"')
    expect(text).toContain('policyRules[3].model: "iab" needs manifest.iab.enabled')
    expect(text).toContain("policyRules[4].match: matches nothing")
    expect(issues.length).toBeGreaterThanOrEqual(7)
  })

  it("refuses unknown categories and unknown keys, all at once", () => {
    const issues = manifestProblems({
      policyRules: [
        { id: "a", match: { default: true }, model: "opt-in", categories: ["tracking"] },
        { id: "b", match: { countries: ["DE"] }, model: "opt-in", categories: [], colour: "red" }
      ],
      theme: "dark"
    })
    const text = issues.join("\n")
    expect(text).toContain("manifest.policyRules[0].categories[0]")
    expect(text).toContain("manifest.policyRules[1].colour: unknown option")
    expect(text).toContain("manifest.theme: unknown option")
  })

  it("accepts the test manifest", () => {
    expect(() => svcInstance({ database, manifest } as never)).not.toThrow()
  })
})
