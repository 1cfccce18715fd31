import { defineConfig, SvcConfigurationError, svcInstance } from "@svc/backend"
import { describe, expect, it } from "vitest"
import { problemsOf } from "./support/config-problems.js"

const database = { dialect: "sqlite", url: ":memory:" } as const
const rule = { id: "eu", match: { countries: ["DE"] }, model: "opt-in", categories: ["marketing"] } as const

describe("svcInstance option validation", () => {
  it("accepts a minimal valid configuration without connecting", async () => {
    const instance = svcInstance({ database })
    expect(typeof instance.handler).toBe("function")
    await instance.dispose()
  })

  it.each([
    ["", "tenantId: must not be empty"],
    ["   ", "tenantId: must not be empty"],
    [" acme", "tenantId: must not start or end with white space"],
    [null, "tenantId: must be a string (got null)"],
    [42, "tenantId: must be a string (got number)"]
  ])("rejects tenantId %j", (tenantId, message) => {
    expect(problemsOf({ database, tenantId })).toContain(message)
  })

  it("requireTenantId: true without a tenantId throws; with one it builds", () => {
    expect(problemsOf({ database, requireTenantId: true })).toContain("requireTenantId: true, but no tenantId is set")
    expect(() => svcInstance({ database, requireTenantId: true, tenantId: "acme" })).not.toThrow()
  })

  it("rejects hosting values other than self-hosted and managed", () => {
    expect(problemsOf({ database, hosting: "cloud" })).toContain(
      'hosting: must be "self-hosted" or "managed" (got "cloud")'
    )
    expect(() => svcInstance({ database, hosting: "managed" })).not.toThrow()
  })

  it("rejects manifest.tenantId and manifest.hosting", () => {
    const problems = problemsOf({ database, manifest: { policyRules: [], tenantId: "a", hosting: "managed" } })
    expect(problems).toContain("manifest.tenantId: not supported; set the instance's tenantId instead")
    expect(problems).toContain("manifest.hosting: not supported; set the instance's hosting instead")
  })

  it("rejects unknown keys at the top level, in option blocks and in policy rules", () => {
    const problems = problemsOf({
      database,
      tenantid: "typo",
      ipAddress: { trackng: false },
      manifest: { policyRules: [{ ...rule, colour: "red" }] }
    })
    expect(problems).toContain("tenantid: unknown option")
    expect(problems).toContain("ipAddress.trackng: unknown option")
    expect(problems).toContain("manifest.policyRules[0].colour: unknown option")
  })

  it("lists every problem in one error", () => {
    const problems = problemsOf({
      database: { dialect: "oracle", url: "x" },
      tenantId: "",
      hosting: "x",
      apiKeys: [""],
      identityToken: { signingKey: "short" },
      manifest: { policyRules: [{ ...rule, categories: ["bogus"] }] }
    })
    expect(problems.length).toBeGreaterThanOrEqual(4)
    expect(problems.some((p) => p.startsWith("database"))).toBe(true)
    expect(problems.some((p) => p.startsWith("tenantId"))).toBe(true)
    expect(problems.some((p) => p.startsWith("hosting"))).toBe(true)
    expect(problems.some((p) => p.startsWith("manifest.policyRules[0].categories[0]"))).toBe(true)
  })

  it("lists a block's own rules beside problems elsewhere: the manifest's rules, delivery numbers, the lease", () => {
    const problems = problemsOf({
      database,
      hosting: 1,
      manifest: { policyRules: [rule, rule] },
      events: { delivery: { batchSize: 0, timeoutMs: 2_000, leaseMs: 1_000 } }
    })
    expect(problems).toEqual(expect.arrayContaining([
      'hosting: must be "self-hosted" or "managed" (got 1)',
      'manifest.policyRules[1].id: duplicate id "eu" (also policyRules[0])',
      "events.delivery.batchSize: must be a positive integer"
    ]))
    // The lease rule compares the block's values, so it waits until each is a number svc accepts.
    expect(problemsOf({ database, hosting: 1, events: { delivery: { timeoutMs: 2_000, leaseMs: 1_000 } } })).toContain(
      "events.delivery.leaseMs: must be longer than events.delivery.timeoutMs"
    )
  })

  it("checks manifest rules: duplicate ids, several defaults or fallbacks, categories", () => {
    const problems = problemsOf({
      database,
      manifest: {
        policyRules: [
          { ...rule, match: { default: true } },
          { ...rule, match: { default: true } },
          { id: "f1", match: { fallback: true }, model: "opt-in", categories: [] },
          {
            id: "f2",
            match: { fallback: true },
            model: "opt-in",
            categories: ["marketing"],
            preselected: ["measurement"]
          }
        ]
      }
    })
    expect(problems).toContain('manifest.policyRules[1].id: duplicate id "eu" (also policyRules[0])')
    expect(problems).toContain("manifest.policyRules: 2 rules have match.default (at most one)")
    expect(problems).toContain("manifest.policyRules: 2 rules have match.fallback (at most one)")
    expect(problems).toContain(
      'manifest.policyRules[3].preselected: "measurement" is not one of the rule\'s categories'
    )
  })

  it("requires signing keys of at least 32 bytes, and says how to generate one", () => {
    const kinds = { identityToken: "identity", policySnapshot: "snapshot", legalDocumentSnapshot: "snapshot" }
    for (const [block, kind] of Object.entries(kinds)) {
      expect(problemsOf({ database, [block]: { signingKey: "x".repeat(31) } })).toContain(
        `${block}.signingKey: must be at least 32 bytes; generate one with \`svc keys ${kind}\``
      )
      expect(() => svcInstance({ database, [block]: { signingKey: "x".repeat(32) } })).not.toThrow()
    }
  })

  it('requires API keys of at least 32 bytes ("abc" is refused), and says how to generate one', () => {
    expect(problemsOf({ database, apiKeys: ["x".repeat(32), "abc"] })).toEqual([
      "apiKeys[1]: must be at least 32 bytes; generate one with `svc keys api`"
    ])
    // Bytes, not characters: 11 three-byte characters are 33 bytes.
    expect(() => svcInstance({ database, apiKeys: ["€".repeat(11)] })).not.toThrow()
  })

  it("validates trustedOrigins entries and basePath", () => {
    const problems = problemsOf({ database, trustedOrigins: ["ok.example", "not a host"], basePath: "no-slash" })
    expect(problems).toContain('trustedOrigins[1]: not a host, host:port, *.domain or * (got "not a host")')
    expect(problems).toContain('basePath: must be a path such as "/api/svc" (got "no-slash")')
  })

  it("refuses script.config keys that look like secrets (they would reach every browser)", () => {
    const problems = problemsOf({ database, script: { config: { theme: "dark", apiKey: "k" } } })
    expect(problems).toContain("script.config.apiKey: looks like a secret; script config is sent to every browser")
  })

  it("needs a GVL source when the gvl block opts in", () => {
    expect(problemsOf({ database, gvl: { vendorIds: [1] } })).toContain(
      "gvl: needs a source (gvl.file, gvl.endpoint or manifest.iab.endpoint)"
    )
    expect(() => svcInstance({ database, gvl: { enabled: false } })).not.toThrow()
  })
})

describe("defineConfig", () => {
  it("returns the options unchanged", () => {
    const options = { database, apiKeys: ["k".repeat(32)] }
    expect(defineConfig(options)).toBe(options)
  })

  it("rejects observability and sessions, which belong to the instance", () => {
    expect(() => defineConfig({ database, observability: { requests: "all" } } as never)).toThrow(SvcConfigurationError)
    expect(() => defineConfig({ database, sessions: {} } as never)).toThrow(/sessions/)
  })
})

describe("configuration errors never quote secrets", () => {
  it("reports wrongly typed keys without their values", () => {
    const secret = "sk_live_TOPSECRET_0123456789"
    const problems = problemsOf({
      database: { dialect: "postgres", url: `postgres://svc:${secret}@db/svc`, bogus: 1 },
      apiKeys: secret,
      identityToken: { signingKey: 42, note: secret },
      policySnapshot: secret
    })
    expect(problems.length).toBeGreaterThanOrEqual(3)
    expect(problems.join("\n")).not.toContain(secret)
    expect(problems.join("\n")).not.toMatch(/Expected undefined/)
  })
})
