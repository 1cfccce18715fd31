import { describe, expect, it } from "vitest"
import { call } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { manifest } from "./support/policy-manifest.js"
import { useServersOnOneDatabase } from "./support/shared-database.js"
import { problemsOf } from "./support/config-problems.js"

const defaultMapping = {
  ad_storage: "marketing",
  ad_user_data: "marketing",
  ad_personalization: "marketing",
  analytics_storage: "measurement",
  functionality_storage: "functionality",
  personalization_storage: "experience",
  security_storage: "necessary"
}

const withConsentMode = {
  ...manifest,
  consentMode: { mapping: { functionality_storage: "necessary" } },
  policyRules: manifest.policyRules.map((rule) =>
    rule.id === "us-ca" ? { ...rule, consentMode: { ad_user_data: "measurement" } } : rule
  )
}

describe.each(dialects)("Google Consent Mode v2 on /init and /manifest [%s]", (dialect) => {
  const [on, off] = useServersOnOneDatabase(dialect, [{ manifest: withConsentMode as never }, { manifest }])

  it("/init carries the matched rule's mapping (defaults, manifest and rule overrides) and its region", async () => {
    const ca = await call(on!, "GET", "/init?country=US&region=CA")
    expect(ca.body.consentMode).toEqual({
      mapping: { ...defaultMapping, functionality_storage: "necessary", ad_user_data: "measurement" },
      waitForUpdate: 500,
      region: ["US-CA"]
    })
    const de = await call(on!, "GET", "/init?country=DE")
    expect(de.body.consentMode).toEqual({
      mapping: { ...defaultMapping, functionality_storage: "necessary" },
      waitForUpdate: 500,
      region: ["DE", "AT", "US"]
    })
    // The default rule is not regional: no region.
    const rest = await call(on!, "GET", "/init?country=JP")
    expect(rest.body.policy.id).toBe("rest")
    expect(rest.body.consentMode.region).toBeNull()
  })

  it("/manifest publishes the option and each rule's overrides; without the option neither carries it", async () => {
    const published = await call(on!, "GET", "/manifest")
    expect(published.body.consentMode).toEqual({ mapping: { functionality_storage: "necessary" } })
    expect(published.body.policyPacks.find((p: { id: string }) => p.id === "us-ca").consentMode).toEqual({
      ad_user_data: "measurement"
    })
    expect((await call(off!, "GET", "/manifest")).body).not.toHaveProperty("consentMode")
    expect((await call(off!, "GET", "/init?country=DE")).body).not.toHaveProperty("consentMode")
  })
})

describe("consentMode option validation", () => {
  const manifestProblems = (patch: Record<string, unknown>) =>
    problemsOf({ database: { dialect: "sqlite", url: ":memory:" }, manifest: { ...manifest, ...patch } })

  it("lists every unknown Google type and unknown category, in the manifest block and in rules", () => {
    const problems = manifestProblems({
      consentMode: { mapping: { ads_storage: "marketing", analytics_storage: "statistics" }, waitForUpdate: -1 },
      policyRules: [{
        ...manifest.policyRules[0],
        consentMode: { ad_storage: "advertising", wait_for_update: "marketing" }
      }]
    })
    expect(problems).toEqual(expect.arrayContaining([
      "manifest.consentMode.mapping.ads_storage: unknown option",
      expect.stringMatching(/^manifest\.consentMode\.mapping\.analytics_storage: .*"statistics"/),
      expect.stringMatching(/^manifest\.consentMode\.waitForUpdate/),
      expect.stringMatching(/^manifest\.policyRules\[0\]\.consentMode\.ad_storage: .*"advertising"/),
      "manifest.policyRules[0].consentMode.wait_for_update: unknown option"
    ]))
    expect(problems).toHaveLength(5)
  })
})
