// The IAB bundle's `__gpp` (GPP CMP API v1.1) in Chromium: the usnat section for opt-out rules in the US.
// Chromium (/usr/bin/chromium) is required in CI (CI=true); elsewhere the suite is skipped with a warning.
import { GppModel } from "@iabgpp/cmpapi"
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { runBrowserTests, useChromiumSite } from "./e2e/chromium-site.js"
import { testPolicyRules } from "./e2e/policy-rules.js"

const env = useChromiumSite({ policyRules: testPolicyRules, iab: { enabled: true, cmpId: 12 } } as never)

/** Calls `__gpp(command, callback, parameter)` in the page; answers `[data, success]`. */
const gpp = (page: Page, command: string, parameter?: string) =>
  page.evaluate(
    ([c, p]) =>
      new Promise<[any, boolean]>((done) =>
        (window as any).__gpp(c, (data: unknown, ok: boolean) => done([data, ok]), p)
      ),
    [command, parameter] as const
  )

const resolved = (page: Page) => page.waitForFunction(() => (window as any).svc?.init != null)

/** What the IAB's own library reads from a GPP string. */
const decoded = (gppString: string) => {
  const model = new GppModel(gppString)
  return { sectionIds: model.getSectionIds(), usnat: model.getSection("usnat") }
}

const usnat = (saleOptOut: 1 | 2, gpc: boolean) => ({
  Version: 2,
  SharingNotice: 0,
  SaleOptOutNotice: 1,
  SharingOptOutNotice: 1,
  TargetedAdvertisingOptOutNotice: 1,
  SensitiveDataProcessingOptOutNotice: 0,
  SensitiveDataLimitUseNotice: 0,
  SaleOptOut: saleOptOut,
  SharingOptOut: saleOptOut,
  TargetedAdvertisingOptOut: saleOptOut,
  SensitiveDataProcessing: Array(16).fill(0),
  KnownChildSensitiveDataConsents: [0, 0, 0],
  PersonalDataConsents: 0,
  MspaCoveredTransaction: 2,
  MspaOptOutOptionMode: 0,
  MspaServiceProviderMode: 0,
  GpcSegmentType: 1,
  Gpc: gpc
})

describe.runIf(runBrowserTests)("__gpp in Chromium (svc.iab.js)", () => {
  it("opt-out in California: ping and getSection('usnat') follow the choice, listeners hear it, and the save carries the string", async () => {
    const context = await env.browser.newContext()
    const page = await context.newPage()
    // An IAB-style stub queues a ping before the bundle loads.
    const before = `window.__gppQueue = []; window.__gpp = function () {
      if (!arguments.length) return window.__gppQueue;
      if (arguments[0] === "events") return [];
      window.__gppQueue.push([].slice.call(arguments));
    };
    window.__gpp("ping", function (data, ok) { window.stubPing = [data, ok] });`
    await page.goto(env.site.page({ bundle: "svc.iab.js", config: { country: "US", region: "CA", ui: false }, before }))
    await resolved(page)
    const [stubPing, stubOk] = await page.evaluate(() => (window as any).stubPing)
    expect(stubOk).toBe(true)
    expect(stubPing).toMatchObject({ gppVersion: "1.1", cmpStatus: "loading", signalStatus: "not ready" })
    // Scripts in other frames find both CMP APIs by their hidden locator frames.
    const locators = await page.evaluate(() => [...document.querySelectorAll("iframe")].map((frame) => frame.name))
    expect(locators).toEqual(expect.arrayContaining(["__gppLocator", "__tcfapiLocator"]))

    const [ping, ok] = await gpp(page, "ping")
    expect(ok).toBe(true)
    expect(ping).toMatchObject({
      gppVersion: "1.1",
      cmpStatus: "loaded",
      cmpDisplayStatus: "hidden",
      signalStatus: "ready",
      supportedAPIs: ["7:usnat"],
      cmpId: 12,
      sectionList: [7],
      applicableSections: [7],
      parsedSections: { usnat: usnat(2, false) }
    })
    expect(decoded(ping.gppString)).toEqual({ sectionIds: [7], usnat: usnat(2, false) })
    expect(await gpp(page, "getSection", "usnat")).toEqual([usnat(2, false), true])
    expect(await gpp(page, "hasSection", "usnat")).toEqual([true, true])
    expect(await gpp(page, "getField", "usnat.SaleOptOut")).toEqual([2, true])
    expect(await gpp(page, "getSection", "tcfeuv2")).toEqual([null, true])

    // A listener hears the opt-out; the section then says so.
    const [registered] = await page.evaluate(() =>
      new Promise<[any]>((done) => {
        ;(window as any).gppEvents = []
        ;(window as any).__gpp("addEventListener", (event: any) => {
          ;(window as any).gppEvents.push(event)
          if (event.eventName === "listenerRegistered") done([event])
        })
      })
    )
    expect(registered).toMatchObject({ eventName: "listenerRegistered", data: true })
    const outcome = await page.evaluate(() => (window as any).svc.optOut())
    expect(outcome.ok).toBe(true)
    const events = await page.evaluate(() => (window as any).gppEvents)
    expect(events.map((e: any) => [e.eventName, e.data])).toEqual([["listenerRegistered", true], ["sectionChange",
      "usnat"]])
    expect(events[1].pingData.parsedSections.usnat).toEqual(usnat(1, false))
    const [after] = await gpp(page, "getSection", "usnat")
    expect(after).toEqual(usnat(1, false))
    const [afterPing] = await gpp(page, "ping")
    expect(decoded(afterPing.gppString).usnat).toEqual(usnat(1, false))

    // The save carried the same string; svc decoded and stored it.
    const subjectId = await page.evaluate(() => (window as any).svc.subjectId)
    const view = await (await fetch(`${env.server.url}/subjects/${subjectId}`)).json()
    expect(view.consents[0]).toMatchObject({ gppString: afterPing.gppString, gppSectionIds: [7] })

    const [removed] = await gpp(page, "removeEventListener", String(registered.listenerId))
    expect(removed).toMatchObject({ eventName: "listenerRemoved", listenerId: registered.listenerId, data: true })
    await context.close()
  })

  it("GPC: the usnat section says so and opts out of sale and sharing", async () => {
    const context = await env.browser.newContext()
    await context.addInitScript(() =>
      Object.defineProperty(Navigator.prototype, "globalPrivacyControl", { get: () => true })
    )
    const page = await context.newPage()
    await page.goto(env.site.page({ bundle: "svc.iab.js", config: { country: "US", region: "CA", ui: false } }))
    await resolved(page)
    expect(await gpp(page, "getSection", "usnat")).toEqual([usnat(1, true), true])
    const [ping] = await gpp(page, "ping")
    expect(decoded(ping.gppString).usnat).toEqual(usnat(1, true))
    // Accepting everything cannot opt back in while GPC is on.
    await page.evaluate(() => (window as any).svc.acceptAll())
    expect(await gpp(page, "getField", "usnat.SaleOptOut")).toEqual([1, true])
    expect(await gpp(page, "getField", "usnat.Gpc")).toEqual([true, true])
    await context.close()
  })

  it("outside the US or under an opt-in rule no section applies", async () => {
    for (const config of [{ country: "DE" }, { country: "GB" }]) {
      const context = await env.browser.newContext()
      const page = await context.newPage()
      await page.goto(env.site.page({ bundle: "svc.iab.js", config: { ...config, ui: false } }))
      await resolved(page)
      const [ping] = await gpp(page, "ping")
      expect(ping, config.country).toMatchObject({
        cmpStatus: "loaded",
        signalStatus: "ready",
        sectionList: [],
        applicableSections: [-1],
        gppString: "DBAA",
        parsedSections: {}
      })
      expect(decoded(ping.gppString).sectionIds).toEqual([])
      expect(await gpp(page, "getSection", "usnat")).toEqual([null, true])
      expect(await gpp(page, "hasSection", "usnat")).toEqual([false, true])
      await context.close()
    }
  })
})
