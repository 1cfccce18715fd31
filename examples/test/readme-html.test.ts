// The README's HTML snippets, exactly as written, on a page in headless Chromium: requests to
// https://consent.example.com go to a real svc server, the page itself is https://shop.example.
// Chromium is /usr/bin/chromium (CI always has it; elsewhere the suite is skipped with a warning).
import { startServer, type RunningServer } from "@svc/server"
import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const CHROMIUM = "/usr/bin/chromium"
const withBrowser = existsSync(CHROMIUM) || process.env.CI === "true"
if (!withBrowser) console.warn(`README HTML examples skipped: no ${CHROMIUM}; CI always runs them`)

const examples = resolve(import.meta.dirname, "../../packages/browser/examples")

describe.runIf(withBrowser)("README HTML examples in Chromium", () => {
  let browser: Browser
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer(
      {
        database: { dialect: "sqlite", url: ":memory:" },
        trustedOrigins: ["shop.example"],
        // The page talks to https://consent.example.com (routed to this server), never to 127.0.0.1.
        script: { backendURL: "https://consent.example.com" },
        manifest: {
          policyRules: [{
            id: "everyone",
            match: { default: true },
            model: "opt-in",
            categories: ["measurement", "marketing"]
          }]
        },
        observability: { requests: "none" }
      },
      { port: 0, host: "127.0.0.1" }
    )
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run"]
    })
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  /** Opens the example file as the body of https://shop.example/, with consent.example.com served by svc. */
  const open = async (file: string): Promise<Page> => {
    const page = await (await browser.newContext()).newPage()
    await page.route(
      "https://shop.example/",
      (route) =>
        route.fulfill({
          contentType: "text/html",
          body: `<!doctype html><html><head></head><body>${readFileSync(join(examples, file), "utf8")}</body></html>`
        })
    )
    await page.route("https://consent.example.com/**", async (route) => {
      const request = route.request()
      const body = request.postDataBuffer()
      const url = new URL(request.url())
      const response = await fetch(`${server.url}${url.pathname}${url.search}`, {
        method: request.method(),
        headers: await request.allHeaders(),
        ...(body === null ? {} : { body: new Uint8Array(body) })
      })
      await route.fulfill({
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: Buffer.from(await response.arrayBuffer())
      })
    })
    await page.goto("https://shop.example/")
    await page.waitForFunction(() => (window as any).svc?.init != null)
    return page
  }

  const bannerText = (page: Page) =>
    page.waitForFunction(() => document.querySelector("#svc-consent")?.shadowRoot?.textContent ?? "").then((handle) =>
      handle.jsonValue()
    )

  it("one-tag.html: the single script tag opens the banner", async () => {
    const page = await open("one-tag.html")
    expect(await bannerText(page)).toContain("We value your privacy")
    await page.context().close()
  })

  it("page-config.html: svcConfig and the queued config apply (title, accent, widget)", async () => {
    const page = await open("page-config.html")
    expect(await bannerText(page)).toContain("Cookies?")
    expect(await page.evaluate(() => document.getElementById("svc-consent")!.style.getPropertyValue("--svc-accent")))
      .toBe("#0a7d4f")
    await page.evaluate(() => (window as any).svc.acceptAll({ surface: "banner" }))
    // widget: true leaves a "Privacy settings" button after the choice.
    await page.waitForFunction(() =>
      /Privacy settings/.test(document.querySelector("#svc-consent")?.shadowRoot?.textContent ?? "")
    )
    await page.context().close()
  })
})
