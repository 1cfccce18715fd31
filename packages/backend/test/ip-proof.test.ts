import { describe, expect, it } from "vitest"
import { consentRows, cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServersOnOneDatabase } from "./support/shared-database.js"

describe.each(dialects)("IP address and proof on saves [%s]", (dialect) => {
  const [masked, unmasked, untracked, custom] = useServersOnOneDatabase(dialect, [
    {},
    { ipAddress: { masking: false } },
    { ipAddress: { tracking: false } },
    { ipAddress: { ipAddressHeaders: ["X-Custom-IP", "x-forwarded-for"], masking: false } }
  ])
  const storedIp = async (server: typeof masked, headers: Record<string, string>) => {
    const body = cookieSave()
    expect((await save(server!, body, headers)).status).toBe(200)
    const [row] = await consentRows(server!, body.subjectId as string)
    return row!
  }

  it("masks by default: the last IPv4 octet, IPv6 beyond /48", async () => {
    expect((await storedIp(masked, { "x-forwarded-for": "198.51.100.23, 10.0.0.1" })).ip_address).toBe("198.51.100.0")
    expect((await storedIp(masked, { "x-forwarded-for": "2001:db8:85a3:8d3:1319:8a2e:370:7348" })).ip_address).toBe(
      "2001:db8:85a3::"
    )
    // the socket address when no header carries one
    expect((await storedIp(masked, {})).ip_address).toBe("127.0.0.0")
  })

  it("reads the default headers in order (cf-connecting-ip before x-forwarded-for)", async () => {
    expect(
      (await storedIp(unmasked, { "x-forwarded-for": "203.0.113.9", "cf-connecting-ip": "198.51.100.7" })).ip_address
    ).toBe("198.51.100.7")
  })

  it("stores the full address with masking off, and none with tracking off", async () => {
    expect((await storedIp(unmasked, { "x-forwarded-for": "203.0.113.9" })).ip_address).toBe("203.0.113.9")
    expect((await storedIp(untracked, { "x-forwarded-for": "203.0.113.9" })).ip_address).toBeNull()
  })

  it("uses ipAddressHeaders in the given order instead of the defaults", async () => {
    expect((await storedIp(custom, { "x-custom-ip": "192.0.2.44", "x-forwarded-for": "203.0.113.9" })).ip_address).toBe(
      "192.0.2.44"
    )
    expect((await storedIp(custom, { "x-forwarded-for": "203.0.113.9" })).ip_address).toBe("203.0.113.9")
    expect((await storedIp(custom, { "cf-connecting-ip": "198.51.100.7" })).ip_address).toBe("127.0.0.1")
  })

  it("keeps the user agent, givenAt as sent and createdAt at receipt as proof", async () => {
    const givenAt = Date.now() - 120_000
    const body = cookieSave({ givenAt })
    expect((await save(masked!, body, { "user-agent": "Mozilla/5.0 (proof)" })).status).toBe(200)
    const [row] = await consentRows(masked!, body.subjectId as string)
    expect(row!.user_agent).toBe("Mozilla/5.0 (proof)")
    expect(Number(row!.given_at)).toBe(givenAt)
    expect(Number(row!.created_at)).toBeGreaterThan(givenAt)
    expect(row!.act_key).toMatch(/^[0-9a-f]{64}$/)
    expect(row!.act_digest).toMatch(/^[0-9a-f]{64}$/)
  })
})
