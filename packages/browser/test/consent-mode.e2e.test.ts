// Google Consent Mode v2 in Chromium: the exact gtag commands the bundles push to window.dataLayer.
// Chromium (/usr/bin/chromium) is required in CI (CI=true); elsewhere the suite is skipped with a warning.
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { runBrowserTests, useChromiumSite } from "./e2e/chromium-site.js"
import { testPolicyRules } from "./e2e/policy-rules.js"

// The EU rule maps personalization_storage to functionality instead of experience (a per-rule override).
const policyRules = testPolicyRules.map((rule) =>
  rule.id === "eu-opt-in" ? { ...rule, consentMode: { personalization_storage: "functionality" } } : rule
)

const env = useChromiumSite(
  { policyRules, iab: { enabled: true, cmpId: 12 }, consentMode: { waitForUpdate: 700 } } as never
)

type Value = "granted" | "denied"
const g: Value = "granted"
const d: Value = "denied"

/** The seven types in Google's order: ads (3), analytics, functionality, personalization, security. */
const types = (ads: Value, analytics: Value, functionality: Value, personalization: Value) => ({
  ad_storage: ads,
  ad_user_data: ads,
  ad_personalization: ads,
  analytics_storage: analytics,
  functionality_storage: functionality,
  personalization_storage: personalization,
  security_storage: g
})

const defaults = (gpc: boolean) => [
  ["consent", "default", { ...types(gpc ? d : g, g, g, g), region: ["US-CA"], wait_for_update: 700 }],
  ["consent", "default", { ...types(d, d, d, d), region: ["FR"], wait_for_update: 700 }],
  ["consent", "default", { ...types(d, d, d, d), region: ["DE", "AT", "NL"], wait_for_update: 700 }],
  // everywhere else: the `default: true` rule (opt-out, GPC denies marketing)
  ["consent", "default", { ...types(gpc ? d : g, g, g, g), wait_for_update: 700 }]
]

const update = (
  ads: Value,
  analytics: Value,
  functionality: Value,
  personalization: Value
) => ["consent", "update", types(ads, analytics, functionality, personalization)]

/** window.dataLayer with each gtag `arguments` object as a plain array. */
const dataLayer = (page: Page) =>
  page.evaluate(() => ((window as any).dataLayer as Array<ArrayLike<unknown>>).map((entry) => Array.from(entry)))

const resolved = (page: Page) => page.waitForFunction(() => (window as any).svc?.init != null)

describe.runIf(runBrowserTests)("Google Consent Mode v2 in Chromium", () => {
  it("opt-in: denied defaults before /init, the rule's update when it resolves, granted on accept, and again on hydration", async () => {
    const context = await env.browser.newContext()
    const page = await context.newPage()
    // The page's own dataLayer is kept; each push notes whether /init had answered by then.
    const before = `window.dataLayer = [{ event: "page" }]; window.initAtPush = [];
      const push = window.dataLayer.push.bind(window.dataLayer);
      window.dataLayer.push = (...a) => { window.initAtPush.push(window.svc && window.svc.init != null); return push(...a) };`
    await page.goto(env.site.page({ bundle: "svc.headless.js", config: { country: "DE" }, before }))
    await resolved(page)
    const [pageEntry, ...pushed] = await dataLayer(page)
    expect(pageEntry).toEqual([])
    expect(pushed).toEqual([...defaults(false), update(d, d, d, d)])
    // The four defaults were in place before /init answered, i.e. before any later tag could run.
    expect(await page.evaluate(() => (window as any).initAtPush)).toEqual([false, false, false, false, true])
    const init = await page.evaluate(() => (window as any).svc.init.consentMode)
    expect(init).toEqual({
      mapping: {
        ad_storage: "marketing",
        ad_user_data: "marketing",
        ad_personalization: "marketing",
        analytics_storage: "measurement",
        functionality_storage: "functionality",
        personalization_storage: "functionality",
        security_storage: "necessary"
      },
      waitForUpdate: 700,
      region: ["DE", "AT", "NL"]
    })

    await page.evaluate(() => (window as any).svc.acceptAll())
    // measurement and marketing are offered; functionality is not (and personalization maps to it)
    expect((await dataLayer(page)).slice(1)).toEqual([...defaults(false), update(d, d, d, d), update(g, g, d, d)])

    // Next page view: defaults, the stored choice hydrated (manifest mapping: personalization ← experience), then /init.
    await page.reload()
    await resolved(page)
    expect((await dataLayer(page)).slice(1)).toEqual([...defaults(false), update(g, g, d, d), update(g, g, d, d)])
    await context.close()
  })

  it("opt-out: granted until the visitor opts out of sale and sharing", async () => {
    const context = await env.browser.newContext()
    const page = await context.newPage()
    await page.goto(env.site.page({ bundle: "svc.headless.js", config: { country: "US", region: "CA" } }))
    await resolved(page)
    expect(await dataLayer(page)).toEqual([...defaults(false), update(g, g, g, g)])
    await page.evaluate(() => (window as any).svc.optOut())
    expect(await dataLayer(page)).toEqual([...defaults(false), update(g, g, g, g), update(d, g, g, g)])
    await context.close()
  })

  it("GPC: the defaults already deny what the rules' gpcDenies name, and so does every update", async () => {
    const context = await env.browser.newContext()
    await context.addInitScript(() =>
      Object.defineProperty(Navigator.prototype, "globalPrivacyControl", { get: () => true })
    )
    const page = await context.newPage()
    await page.goto(env.site.page({ bundle: "svc.headless.js", config: { country: "US", region: "CA" } }))
    await resolved(page)
    expect(await dataLayer(page)).toEqual([...defaults(true), update(d, g, g, g)])
    // Accepting everything cannot grant what GPC denies.
    await page.evaluate(() => (window as any).svc.acceptAll())
    expect(await dataLayer(page)).toEqual([...defaults(true), update(d, g, g, g), update(d, g, g, g)])
    await context.close()
  })

  it("the full and IAB bundles push the same defaults; a page can turn Consent Mode off", async () => {
    for (const bundle of ["svc.js", "svc.iab.js"] as const) {
      const context = await env.browser.newContext()
      const page = await context.newPage()
      await page.goto(env.site.page({ bundle, config: { country: "DE", ui: false } }))
      await resolved(page)
      expect(await dataLayer(page), bundle).toEqual([...defaults(false), update(d, d, d, d)])
      await context.close()
    }
    const context = await env.browser.newContext()
    const page = await context.newPage()
    await page.goto(env.site.page({ bundle: "svc.headless.js", config: { country: "DE", consentMode: false } }))
    await resolved(page)
    expect(await page.evaluate(() => (window as any).dataLayer)).toBeUndefined()
    await context.close()
  })
})
