// Chromium against a real svc server and a test site, for the e2e suites.
// Chromium (/usr/bin/chromium) is required in CI (CI=true); elsewhere those suites are skipped.
import { startServer } from "@svc/server"
import { existsSync } from "node:fs"
import { type Browser, chromium } from "playwright-core"
import { afterAll, beforeAll } from "vitest"
import { startSite } from "./pages.js"

const CHROMIUM = "/usr/bin/chromium"
export const runBrowserTests = existsSync(CHROMIUM) || process.env.CI === "true"

export interface ChromiumSite {
  browser: Browser
  server: Awaited<ReturnType<typeof startServer>>
  site: Awaited<ReturnType<typeof startSite>>
}

/**
 * For the enclosing file (vitest `beforeAll`): Chromium, an svc server on in-memory SQLite trusting
 * every origin with `manifest`, and a site serving the bundles against it; all closed after.
 */
export const useChromiumSite = (manifest: Parameters<typeof startServer>[0]["manifest"]): ChromiumSite => {
  const env = {} as ChromiumSite
  beforeAll(async () => {
    if (!runBrowserTests) return
    env.browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run"]
    })
    env.server = await startServer(
      {
        database: { dialect: "sqlite", url: ":memory:" },
        trustedOrigins: ["*"],
        manifest,
        observability: { requests: "none" }
      },
      { port: 0, host: "127.0.0.1" }
    )
    env.site = await startSite(env.server.url)
  })
  afterAll(async () => {
    await env.browser?.close()
    await env.site?.close()
    await env.server?.close()
  })
  return env
}
