// Real-browser tests: headless Chromium drives the bundles on a test site against a backend.
// Chromium (/usr/bin/chromium) is required in CI (CI=true), where a missing one fails the run;
// elsewhere the suite is skipped with a warning, so a newcomer's `npm test` passes without it.
import { existsSync } from "node:fs"
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startBackend, type Backend } from "./e2e/backend.js"
import { startSite } from "./e2e/pages.js"
import { decodeCore, decodeDisclosedVendors } from "./tc-decoder.js"

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** Defaults the script route embeds; pages override them through window.svcConfig. */
const EMBEDDED = {
  journeyScope: "embedded",
  translations: { "optOut.dismiss": "Got it" },
  theme: { accent: "#0a7d4f" }
}

const CHROMIUM = "/usr/bin/chromium"
const runBrowserTests = existsSync(CHROMIUM) || process.env.CI === "true"
if (!runBrowserTests) console.warn(`browser e2e skipped: no ${CHROMIUM} (apt-get install chromium); CI always runs it`)

let browser: Browser
let backend: Backend
let site: Awaited<ReturnType<typeof startSite>>

beforeAll(async () => {
  if (!runBrowserTests) return
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  backend = await startBackend(EMBEDDED)
  site = await startSite(backend.url)
})

afterAll(async () => {
  await browser?.close()
  await site?.close()
  await backend?.close()
})

const fresh = async (options: Parameters<Browser["newContext"]>[0] = {}): Promise<BrowserContext> =>
  browser.newContext(options)

/** Requests the page makes to the backend, by method and path. */
const track = (page: Page, target: Backend = backend) => {
  const seen: Array<{ method: string; path: string; query: URLSearchParams; body: any }> = []
  page.on("request", (request) => {
    if (!request.url().startsWith(target.url)) return
    const url = new URL(request.url())
    const raw = request.postData()
    seen.push({
      method: request.method(),
      path: url.pathname,
      query: url.searchParams,
      body: raw ? JSON.parse(raw) : undefined
    })
  })
  return seen
}

const initDone = (page: Page) => page.waitForFunction(() => (window as any).svc?.init != null)

const subject = async (id: string): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${backend.url}/subjects/${encodeURIComponent(id)}`)
  return { status: response.status, body: await response.json() }
}

const subjectId = (page: Page): Promise<string> => page.evaluate(() => (window as any).svc.subjectId as string)

/** The focused element, looking inside the consent UI's shadow root. */
const focused = (page: Page) =>
  page.evaluate(() => {
    let el: Element | null = document.activeElement
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement
    return {
      tag: el?.tagName ?? "",
      text: (el?.textContent ?? "").trim(),
      label: el?.closest("label")?.textContent?.trim() ?? "",
      inDialog: el?.closest('[role="dialog"]') != null,
      checked: (el as HTMLInputElement | null)?.checked
    }
  })

describe.runIf(runBrowserTests)(`browser bundles in Chromium`, () => {
  it("shows an EU visitor the banner; accepting saves a consent GET /subjects/:id returns", async () => {
    const context = await fresh()
    const page = await context.newPage()
    const requests = track(page)
    await page.goto(site.page({ config: { country: "DE" } }))
    const banner = page.getByRole("region", { name: "We value your privacy" })
    await banner.waitFor()
    // /init carries the version, the contract, the page's location override and the journey.
    const init = requests.find((r) => r.path === "/init")!
    expect(init.query.get("contract")).toBe("1")
    expect(init.query.get("country")).toBe("DE")
    expect(init.query.get("v")).toMatch(/^\d+\.\d+\.\d+/)
    expect(init.query.get("journey")).toMatch(/^jrn_/)
    expect(init.query.get("journeyScope")).toBe("embedded")
    expect(await page.evaluate(() => (window as any).svc.hosting)).toBe("self-hosted")

    const before = Date.now()
    await banner.getByRole("button", { name: "Accept all" }).click()
    await banner.waitFor({ state: "detached" })
    await page.waitForFunction(() =>
      localStorage.getItem("svc.queue") === null && localStorage.getItem("svc.consent") !== null
    )
    const id = await subjectId(page)
    expect(id).toMatch(/^sub_[A-Za-z0-9_-]{24,}$/)
    const view = await subject(id)
    expect(view.status).toBe(200)
    expect(view.body.consents).toHaveLength(1)
    expect(view.body.subjectChoice.categories.measurement.value).toBe(true)
    expect(view.body.subjectChoice.categories.marketing.value).toBe(true)
    const givenAt = Date.parse(view.body.consents[0].givenAt)
    expect(givenAt).toBeGreaterThanOrEqual(before - 5)
    expect(givenAt).toBeLessThanOrEqual(Date.now())
    const save = requests.find((r) => r.method === "POST")!.body
    expect(save).toMatchObject({ action: "accept_all", surface: "banner", type: "cookie_banner", domain: "127.0.0.1" })
    expect(save.policySnapshotToken).toBeTruthy()
    expect(save.journey.id).toBe(init.query.get("journey"))
    expect(await page.evaluate(() => document.cookie)).toMatch(/svc_consent=1\.[^.;]*\.ms1\.mk1\.fn0\.ex0\.\d+/)

    // The stored choice holds for the next page: no banner, no second save (hydration is not a save).
    await page.reload()
    await initDone(page)
    await page.waitForTimeout(200)
    expect(await page.getByRole("region", { name: "We value your privacy" }).count()).toBe(0)
    expect(await page.evaluate(() => (window as any).svc.consent.status)).toBe("given")
    expect(requests.filter((r) => r.method === "POST")).toHaveLength(1)
    await context.close()
  })

  it("replays a save made offline when the network returns, with its original givenAt", async () => {
    const context = await fresh()
    const page = await context.newPage()
    await page.goto(site.page({ config: { country: "DE" } }))
    const banner = page.getByRole("region", { name: "We value your privacy" })
    await banner.waitFor()
    const id = await subjectId(page)
    await context.setOffline(true)
    await banner.getByRole("button", { name: "Reject all" }).click()
    await page.waitForFunction(() => JSON.parse(localStorage.getItem("svc.queue") ?? "[]")[0]?.attempts >= 1)
    const queued = await page.evaluate(() => JSON.parse(localStorage.getItem("svc.queue")!)[0].body)
    expect((await subject(id)).status).toBe(404)
    // The choice applies locally at once.
    expect(await page.evaluate(() => (window as any).svc.consent.preferences.marketing)).toBe(false)

    await context.setOffline(false) // fires `online`: the queue flushes
    await page.waitForFunction(() => localStorage.getItem("svc.queue") === null, undefined, { timeout: 10_000 })
    const view = await subject(id)
    expect(view.status).toBe(200)
    expect(view.body.consents).toHaveLength(1)
    expect(view.body.consents[0].givenAt).toBe(new Date(queued.givenAt).toISOString())
    expect(view.body.subjectChoice.categories.marketing.value).toBe(false)
    await context.close()
  })

  it("replays a queued save on the next page load", async () => {
    const context = await fresh()
    const first = await context.newPage()
    await first.goto(site.page({ config: { country: "DE" } }))
    await first.getByRole("region", { name: "We value your privacy" }).waitFor()
    const id = await subjectId(first)
    await context.setOffline(true)
    await first.evaluate(() => (window as any).svc.acceptAll())
    const queued = await first.evaluate(() => JSON.parse(localStorage.getItem("svc.queue")!)[0].body)
    await first.close()
    await context.setOffline(false)
    expect((await subject(id)).status).toBe(404)

    const second = await context.newPage()
    await second.goto(site.page({ config: { country: "DE" } }))
    await second.waitForFunction(() => localStorage.getItem("svc.queue") === null, undefined, { timeout: 10_000 })
    const view = await subject(id)
    expect(view.body.consents).toHaveLength(1)
    expect(view.body.consents[0].givenAt).toBe(new Date(queued.givenAt).toISOString())
    await context.close()
  })

  it("gives a GPC visitor the opt-out behaviour: marketing denied, no notice, nothing saved", async () => {
    const context = await fresh({ extraHTTPHeaders: { "Sec-GPC": "1" } })
    await context.addInitScript(() =>
      Object.defineProperty(Navigator.prototype, "globalPrivacyControl", { get: () => true })
    )
    const page = await context.newPage()
    const requests = track(page)
    await page.goto(site.page({ config: { country: "US", region: "CA" } }))
    await initDone(page)
    await page.waitForTimeout(300)
    const state = await page.evaluate(() => (window as any).svc.consent)
    expect(state.gpc).toBe(true)
    expect(state.model).toBe("opt-out")
    expect(state.preferences).toMatchObject({ marketing: false, measurement: true })
    expect(await page.evaluate(() => (window as any).svc.has("marketing"))).toBe(false)
    expect(await page.locator('[data-svc="notice"]').count()).toBe(0)
    expect(requests.find((r) => r.path === "/init")!.query.get("gpc")).toBe("1")
    expect(requests.filter((r) => r.method !== "GET")).toHaveLength(0)
    await context.close()
  })

  it("shows a California visitor without GPC a notice whose 'Do not sell or share' saves an opt-out", async () => {
    const context = await fresh()
    const page = await context.newPage()
    const requests = track(page)
    await page.goto(site.page({ config: { country: "US", region: "CA" } }))
    const notice = page.getByRole("region", { name: "Your privacy choices" })
    await notice.waitFor()
    expect(await page.evaluate(() => (window as any).svc.has("marketing"))).toBe(true)
    // The embedded defaults' translation is used, and the embedded theme reaches the host.
    await notice.getByRole("button", { name: "Got it" }).waitFor()
    expect(
      await page.locator("#svc-consent").evaluate((el) => (el as HTMLElement).style.getPropertyValue("--svc-accent"))
    ).toBe(
      "#0a7d4f"
    )
    await notice.getByRole("button", { name: "Do not sell or share my personal information" }).click()
    await page.waitForFunction(() =>
      localStorage.getItem("svc.consent") !== null && localStorage.getItem("svc.queue") === null
    )
    const save = requests.find((r) => r.method === "POST")!.body
    expect(save).toMatchObject({
      action: "opt_out",
      surface: "banner",
      preferences: { marketing: false, measurement: true }
    })
    const view = await subject(await subjectId(page))
    expect(view.body.subjectChoice.categories.marketing.value).toBe(false)
    expect(view.body.subjectChoice.categories.measurement.value).toBe(true)
    await context.close()
  })

  it("treats dismissing the notice as no choice: nothing saved, closed for the rest of the tab", async () => {
    const context = await fresh()
    const page = await context.newPage()
    const requests = track(page)
    await page.goto(site.page({ config: { country: "US", region: "CA" } }))
    const notice = page.getByRole("region", { name: "Your privacy choices" })
    await notice.getByRole("button", { name: "Got it" }).click()
    await notice.waitFor({ state: "detached" })
    await page.reload()
    await initDone(page)
    await page.waitForTimeout(200)
    expect(await notice.count()).toBe(0)
    expect(await page.evaluate(() => (window as any).svc.consent.status)).toBe("pending")
    expect(requests.filter((r) => r.method !== "GET")).toHaveLength(0)
    await context.close()
  })

  it("is keyboard operable: banner, focus-trapped dialog, Escape, save", async () => {
    const context = await fresh()
    const page = await context.newPage()
    const requests = track(page)
    await page.goto(site.page({ config: { country: "DE" } }))
    await page.getByRole("region", { name: "We value your privacy" }).waitFor()
    await page.keyboard.press("Tab")
    expect((await focused(page)).text).toBe("Customize")
    await page.keyboard.press("Enter")
    const dialog = page.getByRole("dialog", { name: "Privacy preferences" })
    await dialog.waitFor()
    expect(await dialog.getAttribute("aria-modal")).toBe("true")
    expect(await dialog.getAttribute("aria-describedby")).toBeTruthy()
    let f = await focused(page)
    expect(f).toMatchObject({ tag: "INPUT", inDialog: true, label: "Measurement", checked: false })
    // Tab and Shift+Tab never leave the dialog.
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab")
      expect((await focused(page)).inDialog).toBe(true)
    }
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Shift+Tab")
      expect((await focused(page)).inDialog).toBe(true)
    }
    // Escape closes without saving and gives focus back to the opener.
    await page.keyboard.press("Escape")
    await dialog.waitFor({ state: "detached" })
    expect((await focused(page)).text).toBe("Customize")
    expect(requests.filter((r) => r.method === "POST")).toHaveLength(0)

    await page.keyboard.press("Enter")
    await dialog.waitFor()
    f = await focused(page)
    expect(f.label).toBe("Measurement")
    await page.keyboard.press("Space")
    expect((await focused(page)).checked).toBe(true)
    for (let i = 0; i < 10 && (await focused(page)).text !== "Save choices"; i++) await page.keyboard.press("Tab")
    expect((await focused(page)).text).toBe("Save choices")
    await page.keyboard.press("Enter")
    await dialog.waitFor({ state: "detached" })
    await page.waitForFunction(() =>
      localStorage.getItem("svc.consent") !== null && localStorage.getItem("svc.queue") === null
    )
    const save = requests.find((r) => r.method === "POST")!.body
    expect(save).toMatchObject({
      action: "custom",
      surface: "dialog",
      preferences: { measurement: true, marketing: false }
    })
    expect(save.timeToDecisionMs).toBeGreaterThan(0)
    await context.close()
  })

  it("reopens the dialog from the settings widget with the stored choice, saving from surface 'widget'", async () => {
    const context = await fresh()
    const page = await context.newPage()
    const requests = track(page)
    await page.goto(site.page({ config: { country: "DE", widget: true } }))
    const banner = page.getByRole("region", { name: "We value your privacy" })
    await banner.getByRole("button", { name: "Reject all" }).click()
    const widget = page.getByRole("button", { name: "Privacy settings" })
    await widget.click()
    const dialog = page.getByRole("dialog", { name: "Privacy preferences" })
    const marketing = dialog.getByRole("switch", { name: "Marketing" })
    expect(await marketing.isChecked()).toBe(false)
    await marketing.check()
    await dialog.getByRole("button", { name: "Save choices" }).click()
    await page.waitForFunction(() => (window as any).svc.consent.preferences.marketing === true)
    await page.waitForFunction(() => localStorage.getItem("svc.queue") === null)
    const saves = requests.filter((r) => r.method === "POST").map((r) => r.body)
    expect(saves.map((b) => [b.action, b.surface])).toEqual([
      ["reject_all", "banner"],
      ["custom", "widget"]
    ])
    expect(saves[1].givenAt).toBeGreaterThan(saves[0].givenAt)
    const view = await subject(await subjectId(page))
    expect(view.body.consents).toHaveLength(2)
    expect(view.body.subjectChoice.categories.marketing.value).toBe(true)
    await context.close()
  })

  it("answers __tcfapi on an IAB page: queued stub calls, getTCData, events and a decodable TC string", async () => {
    const context = await fresh()
    const page = await context.newPage()
    const requests = track(page)
    const stub = `
      window.__tcfapi = function () { (window.__tcfapi.a = window.__tcfapi.a || []).push(arguments) };
      window.tcf = { events: [] };
      __tcfapi('ping', 2, function (d) { window.tcf.ping = d });
      __tcfapi('getTCData', 2, function (d, ok) { window.tcf.first = { d: d, ok: ok } });
      __tcfapi('addEventListener', 2, function (d, ok) { window.tcf.events.push(d) });`
    await page.goto(
      site.page({ bundle: "svc.iab.js", config: { country: "FR", iab: { publisherCC: "FR" } }, before: stub })
    )
    const banner = page.getByRole("region", { name: "We value your privacy" })
    await banner.waitFor()
    expect(await banner.textContent()).toContain("3 partners")
    const tcf = await page.evaluate(() => (window as any).tcf)
    expect(tcf.ping).toMatchObject({ cmpLoaded: true, apiVersion: "2.2" })
    expect(tcf.first.ok).toBe(true)
    expect(tcf.first.d).toMatchObject({ gdprApplies: true, tcString: "", eventStatus: "cmpuishown", cmpId: 12 })
    expect(tcf.events[0]).toMatchObject({ eventStatus: "cmpuishown", listenerId: 1 })

    // The dialog lists the vendors.
    await banner.getByRole("button", { name: "Customize" }).click()
    const dialog = page.getByRole("dialog", { name: "Privacy preferences" })
    await dialog.getByText("Partners (3)").click()
    await dialog.getByRole("checkbox", { name: "Captify" }).waitFor()
    await dialog.getByRole("button", { name: "Accept all" }).click()

    await page.waitForFunction(() =>
      (window as any).tcf.events.some((e: any) => e.eventStatus === "useractioncomplete")
    )
    const data = await page.evaluate(
      () =>
        new Promise<any>((resolve) =>
          (window as any).__tcfapi("getTCData", 2, (d: unknown, ok: boolean) => resolve({ d, ok }))
        )
    )
    expect(data.ok).toBe(true)
    expect(data.d.eventStatus).toBe("tcloaded")
    expect(data.d.purpose.consents).toMatchObject({ 1: true, 2: true, 10: true })
    expect(data.d.vendor.consents).toEqual({ 2: true, 8: true, 755: true, 90: false })
    const d = decodeCore(data.d.tcString)
    expect(d).toMatchObject({
      version: 2,
      cmpId: 12,
      vendorListVersion: 91,
      tcfPolicyVersion: 5,
      isServiceSpecific: true,
      publisherCC: "FR",
      consentLanguage: "EN"
    })
    expect(d.purposesConsent).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    expect(d.vendorConsents.ids).toEqual([2, 8, 755])
    expect(d.vendorLegitimateInterests.ids).toEqual([2])
    expect(decodeDisclosedVendors(data.d.tcString)!.ids).toEqual([2, 8, 755])
    const save = requests.find((r) => r.method === "POST")!.body
    expect(save.vendorChoice.grants).toMatchObject({ "2": true, "8": true, "755": true })
    // Listeners can be removed.
    const removed = await page.evaluate(
      () => new Promise((resolve) => (window as any).__tcfapi("removeEventListener", 2, resolve, 1))
    )
    expect(removed).toBe(true)
    await context.close()
  })

  it("runs headless: no UI, the API saves, queued commands run", async () => {
    const context = await fresh()
    const page = await context.newPage()
    const requests = track(page)
    await page.goto(
      site.page({
        bundle: "svc.headless.js",
        config: { country: "DE", journeyScope: "page" },
        before:
          "window.svc.push(function (api) { window.queuedVersion = api.version }); window.svc.push(['subscribe', function (s, e) { (window.events = window.events || []).push(e) }]);"
      })
    )
    await initDone(page)
    expect(await page.locator("#svc-consent").count()).toBe(0)
    expect(await page.evaluate(() => (window as any).queuedVersion)).toMatch(/^\d/)
    expect(await page.evaluate(() => (window as any).svc.consent.status)).toBe("pending")
    const outcome = await page.evaluate(() => (window as any).svc.save({ measurement: true }, { action: "custom" }))
    expect(outcome.ok).toBe(true)
    expect(await page.evaluate(() => (window as any).events)).toEqual(["subscribe", "resolve", "save"])
    const view = await subject(await subjectId(page))
    expect(view.body.subjectChoice.categories).toMatchObject({
      measurement: { value: true },
      marketing: { value: false }
    })
    // Page config overrides the embedded defaults.
    expect(requests.find((r) => r.path === "/init")!.query.get("journeyScope")).toBe("page")
    // identify() links the subject through PATCH /subjects/:id once it exists.
    const linked = await page.evaluate(() => (window as any).svc.identify("user-42"))
    expect(linked).toMatchObject({ ok: true })
    expect(requests.find((r) => r.method === "PATCH")).toMatchObject({ body: { externalId: "user-42" } })
    expect((await subject(await subjectId(page))).body.subject.externalId).toBe("user-42")
    await context.close()
  })
})
