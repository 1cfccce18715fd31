// `/docs` in a real browser: the reference UI renders the contract, and offers nothing that leads
// to its vendor's cloud (the toolbar's "Share" and "Generate SDKs") or fetches from a third party
// (web fonts, telemetry). Served from 127.0.0.1, where the UI shows its toolbar by default.
import { existsSync } from "node:fs"
import { chromium } from "playwright-core"
import { describe, expect, it } from "vitest"
import { useServer } from "./support/server.js"

const CHROMIUM = "/usr/bin/chromium"
const withBrowser = existsSync(CHROMIUM) || process.env.CI === "true"
if (!withBrowser) console.warn(`/docs in Chromium skipped: no ${CHROMIUM}; CI always runs it`)

describe.runIf(withBrowser)("/docs in Chromium", () => {
  const server = useServer("sqlite", { openapi: { title: "Consent API" } })

  it("renders every group of the contract, without the cloud menus or a request off this server", async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] })
    try {
      const page = await browser.newPage()
      const requested: Array<string> = []
      page.on("request", (request) => requested.push(request.url()))
      await page.goto(`${server.url()}/docs`)
      // Rendered: the first group's operation summary and every group of the contract are on the page.
      await page.getByText("Service status and configured version").first().waitFor({ timeout: 45_000 })
      for (const group of ["policy", "subjects", "consents", "legalDocuments", "records", "events"]) {
        expect(await page.getByText(group, { exact: true }).count(), group).toBeGreaterThan(0)
      }
      // The document's title renders after the sidebar: waited for, as the first summary is.
      await page.getByText("Consent API").first().waitFor({ timeout: 30_000 })
      expect(await page.getByText("Generate SDKs").count()).toBe(0)
      expect(await page.getByRole("button", { name: /^Share$/ }).count()).toBe(0)
      expect(await page.getByText("Developer Tools").count()).toBe(0)
      const origin = new URL(server.url()).origin
      expect(requested.filter((url) => !url.startsWith(origin) && !url.startsWith("data:"))).toEqual([])
    } finally {
      await browser.close()
    }
  }, 90_000)
})
