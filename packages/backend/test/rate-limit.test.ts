import { describe, expect, it } from "vitest"
import { bearer, call, cookieSave, newSubjectId, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { manifest } from "./support/policy-manifest.js"
import { useServersOnOneDatabase } from "./support/shared-database.js"
import { sessionReport } from "./support/session-report.js"

const KEY_A = "rate-limit-key-a-5f3a9c1e7b2d4068"
const KEY_B = "rate-limit-key-b-0c8e2f4a6b1d3957"

const report = { ...sessionReport, journey: { id: "jrn_abc" } }

const expectRateLimited = (response: { status: number; body: unknown; headers: Headers }) => {
  expect(response.status).toBe(429)
  expect(response.body).toMatchObject({ cause: { code: "RATE_LIMITED" } })
  const retryAfter = response.headers.get("retry-after")
  expect(retryAfter).toMatch(/^\d+$/)
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
  expect(Number(retryAfter)).toBeLessThanOrEqual(60)
}

describe.each(dialects)("rate limits, memory store [%s]", (dialect) => {
  const [socketOnly, trustedHeader, adminLimited, readsLimited, unlimited] = useServersOnOneDatabase(dialect, [
    // Defaults for the IP headers: none of them is trusted for limiting.
    { manifest, rateLimit: { publicWrites: { limit: 3 } } },
    { manifest, rateLimit: { publicWrites: { limit: 2 } }, ipAddress: { ipAddressHeaders: ["x-forwarded-for"] } },
    { manifest, apiKeys: [KEY_A, KEY_B], rateLimit: { admin: { limit: 2 }, publicWrites: false } },
    {
      manifest,
      rateLimit: { init: { limit: 2 }, manifest: { limit: 2 }, scripts: { limit: 2 } },
      ipAddress: { ipAddressHeaders: ["x-client"] }
    },
    { manifest, apiKeys: [KEY_A] }
  ])

  it("answers the public write over the limit with 429 RATE_LIMITED and Retry-After; a spoofed X-Forwarded-For does not escape it", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await save(socketOnly!, cookieSave(), { "x-forwarded-for": `198.51.100.${i}` })).status).toBe(200)
    }
    const refused = await save(socketOnly!, cookieSave(), { "x-forwarded-for": "203.0.113.99" })
    expectRateLimited(refused)
    // The other public writes share the bucket: PATCH /subjects/:id and POST /sessions.
    expectRateLimited(await call(socketOnly!, "PATCH", `/subjects/${newSubjectId()}`, { externalId: "u-1" }))
    expectRateLimited(await call(socketOnly!, "POST", "/sessions", report, { "x-svc-version": "3.1.0" }))
    // Reads are not limited.
    expect((await call(socketOnly!, "GET", "/init?country=DE")).status).toBe(200)
    expect((await call(socketOnly!, "GET", "/manifest")).status).toBe(200)
  })

  it("keys on a header only when the operator configured it as the client IP header", async () => {
    const from = (ip: string) => save(trustedHeader!, cookieSave(), { "x-forwarded-for": ip })
    expect((await from("192.0.2.1")).status).toBe(200)
    expect((await from("192.0.2.1")).status).toBe(200)
    expectRateLimited(await from("192.0.2.1"))
    expect((await from("192.0.2.2")).status).toBe(200)
    // IPv6 clients are limited per /64: another address in the same /64 shares the bucket.
    expect((await from("2001:db8:1:2::1")).status).toBe(200)
    expect((await from("2001:db8:1:2::ffff")).status).toBe(200)
    expectRateLimited(await from("2001:db8:1:2:abcd::7"))
    expect((await from("2001:db8:1:3::1")).status).toBe(200)
  })

  it("limits administrative routes per API key; a wrong key is still 401", async () => {
    const check = (key: string) =>
      call(adminLimited!, "GET", "/consents/check?externalId=u-1&type=cookie_banner", undefined, bearer(key))
    expect((await check(KEY_A)).status).toBe(200)
    expect((await check(KEY_A)).status).toBe(200)
    expectRateLimited(await check(KEY_A))
    expect((await check(KEY_B)).status).toBe(200)
    expect((await check("not-a-configured-key-0000000000")).status).toBe(401)
    // `publicWrites: false` turns the public limit off.
    for (let i = 0; i < 5; i++) expect((await save(adminLimited!, cookieSave())).status).toBe(200)
  })

  it("limits /init, /manifest and the bundles only when configured", async () => {
    for (const path of ["/init?country=DE", "/manifest", "/svc.js"]) {
      const get = async () => {
        const response = await readsLimited!.fetch(path, { headers: { "x-client": "198.51.100.7" } })
        const text = await response.text()
        return {
          status: response.status,
          body: response.status === 429 ? JSON.parse(text) : text,
          headers: response.headers
        }
      }
      expect((await get()).status, path).toBe(200)
      expect((await get()).status, path).toBe(200)
      expectRateLimited(await get())
      // the groups are counted apart: another client is not affected
      expect((await readsLimited!.fetch(path, { headers: { "x-client": "198.51.100.8" } })).status, path).toBe(200)
    }
    // Public writes are limited by default (120 a minute) once `rateLimit` is set: 5 saves pass.
    for (let i = 0; i < 5; i++) expect((await save(readsLimited!, cookieSave())).status).toBe(200)
  })

  it("limits nothing without a rateLimit option", async () => {
    for (let i = 0; i < 8; i++) {
      expect((await save(unlimited!, cookieSave())).status).toBe(200)
      expect(
        (await call(unlimited!, "GET", "/consents/check?externalId=u&type=cookie_banner", undefined, bearer(KEY_A)))
          .status
      ).toBe(200)
    }
  })
})
