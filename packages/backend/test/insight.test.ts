import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { chromium } from "playwright-core"
import { describe, expect, it } from "vitest"
import { allPreferences, bearer, call, cookieSave, save } from "./support/consent-saves.js"
import { dialects } from "./support/dialects.js"
import { useServer } from "./support/server.js"

const API_KEY = "insight-key-0123456789abcdef01234567"
const DAY = 86_400_000
const ACTIONS = ["accept_all", "reject_all", "custom", "opt_out", "unknown"] as const
const CHROMIUM = "/usr/bin/chromium"
const SCREENSHOTS = join(import.meta.dirname, "..", "test-output", "insight")

const manifest = {
  policyRules: [
    { id: "eu", match: { countries: ["DE"] }, model: "opt-in", categories: ["measurement", "marketing"] },
    {
      id: "rest",
      match: { default: true },
      model: "opt-out",
      categories: ["measurement", "marketing", "functionality", "experience"],
      gpcDenies: ["marketing"]
    }
  ]
} as const

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** Cell text of `<td data-action=...>` in the row of `date` of the daily table. */
const dailyCounts = (html: string, date: string) => {
  const row = new RegExp(`<tr data-date="${date}">(.*?)</tr>`).exec(html)?.[1] ?? ""
  return Object.fromEntries(
    ACTIONS.map((a) => [a, Number(new RegExp(`<td data-action="${a}">(\\d+)</td>`).exec(row)?.[1])])
  )
}

describe.each(dialects)("GET /insight [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY], tenantId: "acme", manifest: manifest as never })
  const today = Math.floor(Date.now() / DAY) * DAY

  const seed = async () => {
    const subjects: Array<string> = []
    // Five days, two domains, each action, some saves carrying GPC.
    for (let d = 0; d < 5; d++) {
      for (let i = 0; i < 6; i++) {
        const action = ACTIONS[(d + i) % ACTIONS.length]
        const body = cookieSave({
          givenAt: today - d * DAY + 3_600_000 + i * 1000,
          domain: i % 3 === 0 ? "shop.example" : "example.com",
          preferences: allPreferences(action === "accept_all"),
          ...(action === "unknown" ? {} : { action }),
          ...(i < 4 ? { experiment: { id: "banner-2026", arm: i % 2 === 0 ? "control" : "compact" } } : {})
        })
        // Location as /init reads it: other edge headers, lower case, Cloudflare's unknown `XX`, none.
        const location = i === 5
          ? d % 2 === 0 ? {} : { "x-vercel-ip-country": " fr " }
          : i === 3 && d === 0
          ? { "cf-ipcountry": "XX" }
          : { "cf-ipcountry": d % 2 === 0 ? "DE" : "US" }
        const answer = await save(server, body, i % 4 === 0 ? { "sec-gpc": "1", "cf-ipcountry": "US" } : location)
        expect(answer.status, JSON.stringify(answer.body)).toBe(200)
        subjects.push(answer.body.subjectId)
      }
    }
    return subjects
  }

  it("shows, for an API key, the numbers the consent rows hold, and never a subject id", async () => {
    const subjects = await seed()
    const published = await call(server, "PUT", "/legal-documents/privacy_policy/current", {
      version: "2.1",
      hash: "sha256-insight",
      effectiveDate: "2026-01-15"
    }, bearer(API_KEY))
    expect(published.status).toBe(200)
    const from = isoDay(today - 6 * DAY)
    const to = isoDay(today)
    const response = await server.fetch(`/insight?from=${from}&to=${to}`, { headers: bearer(API_KEY) })
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/html/)
    const html = await response.text()

    // The truth: the rows themselves.
    const rows = await server.db().query(
      "SELECT given_at, action, policy_id, gpc, domain, experiment_id, experiment_arm, country FROM svc_consents WHERE tenant_id = ? AND type = ?",
      ["acme", "cookie_banner"]
    ) as Array<{
      given_at: number | string
      action: string | null
      policy_id: string | null
      gpc: string | null
      domain: string
      experiment_id: string | null
      experiment_arm: string | null
      country: string | null
    }>
    expect(rows.length).toBe(30)
    for (let d = 0; d <= 6; d++) {
      const date = isoDay(today - d * DAY)
      const expected = Object.fromEntries(ACTIONS.map((a) => [a, 0]))
      for (const row of rows) {
        if (isoDay(Number(row.given_at)) !== date) continue
        expected[
          row.action !== null && (ACTIONS as ReadonlyArray<string>).includes(row.action)
            ? row.action
            : "unknown"
        ]! += 1
      }
      expect(dailyCounts(html, date), date).toEqual(expected)
    }
    expect(html).toContain(`<p class="kpi" id="total-decisions">${rows.length}</p>`)
    for (const policy of new Set(rows.map((r) => r.policy_id ?? "(no rule recorded)"))) {
      const mine = rows.filter((r) => (r.policy_id ?? "(no rule recorded)") === policy)
      const accepted = mine.filter((r) => r.action === "accept_all").length
      expect(html).toContain(
        `<tr data-policy="${policy}"><th scope="row">${policy}</th><td>${mine.length}</td><td>${accepted}</td>`
      )
    }
    // Per country: the country /init would resolve from the save's headers, or unknown.
    expect(new Set(rows.map((r) => r.country))).toEqual(new Set(["DE", "US", "FR", null]))
    for (const country of new Set(rows.map((r) => r.country))) {
      const mine = rows.filter((r) => r.country === country)
      const accepted = mine.filter((r) => r.action === "accept_all").length
      const key = country ?? "unknown"
      expect(html).toContain(
        `<tr data-country="${key}"><th scope="row">${
          country ?? "Unknown"
        }</th><td>${mine.length}</td><td>${accepted}</td>`
      )
    }
    // Countries by decisions, most first, then the unknown ones.
    const countryOrder = [...html.matchAll(/<tr data-country="([^"]+)">/g)].map((m) => m[1])
    const decisionsOf = (c: string | undefined) => rows.filter((r) => (r.country ?? "unknown") === c).length
    expect(countryOrder.at(-1)).toBe("unknown")
    const named = countryOrder.slice(0, -1)
    expect(named.map(decisionsOf)).toEqual(named.map(decisionsOf).sort((a, b) => b - a))
    const withGpc = rows.filter((r) => r.gpc !== null).length
    expect(withGpc).toBeGreaterThan(0)
    expect(html).toContain(`(${withGpc} of ${rows.length})`)

    // Experiment arms side by side, each with its count, accept-all count and Wilson interval.
    for (const arm of ["compact", "control"]) {
      const mine = rows.filter((r) => r.experiment_id === "banner-2026" && r.experiment_arm === arm)
      expect(mine.length).toBeGreaterThan(0)
      const accepted = mine.filter((r) => r.action === "accept_all").length
      expect(html).toMatch(
        new RegExp(
          `<tr data-arm="${arm}"><th scope="row">${arm}</th><td>${mine.length}</td><td>${accepted}</td><td>[^<]+</td><td>\\d+\\.\\d% – \\d+\\.\\d%</td></tr>`
        )
      )
    }
    // The latest legal-document release.
    expect(html).toMatch(/<tr><th scope="row">privacy_policy<\/th><td>2\.1<\/td><td>2026-01-15<\/td>/)

    // A domain narrows every number; an unknown one gives empty charts, not an error.
    const shop =
      await (await server.fetch(`/insight?from=${from}&to=${to}&domain=shop.example`, { headers: bearer(API_KEY) }))
        .text()
    expect(shop).toContain(
      `<p class="kpi" id="total-decisions">${rows.filter((r) => r.domain === "shop.example").length}</p>`
    )
    const shopDe = rows.filter((r) => r.domain === "shop.example" && r.country === "DE")
    expect(shop).toContain(
      `<tr data-country="DE"><th scope="row">DE</th><td>${shopDe.length}</td><td>${
        shopDe.filter((r) => r.action === "accept_all").length
      }</td>`
    )
    const none = await server.fetch(`/insight?from=${from}&to=${to}&domain=nowhere.example`, {
      headers: bearer(API_KEY)
    })
    expect(none.status).toBe(200)
    expect(await none.text()).toContain(`<p class="kpi" id="total-decisions">0</p>`)

    for (const id of subjects) expect(html).not.toContain(id)
    expect(html).not.toContain(API_KEY)
    expect(html).not.toContain("<script")
  })

  it("names the ten countries with most decisions, sums the rest, and keeps the country through erasure", async () => {
    const domain = "countries.example"
    const named = ["AT", "BE", "CH", "DK", "ES", "FI", "GB", "IE", "IT", "NL"]
    const saved: Array<string> = []
    for (const [country, times] of [...named.map((c) => [c, 2] as const), ["PL", 1] as const, ["SE", 1] as const]) {
      for (let i = 0; i < times; i++) {
        const answer = await save(
          server,
          cookieSave({
            givenAt: today + 7_200_000 + saved.length * 1000,
            domain,
            preferences: allPreferences(i === 0 && country !== "SE"),
            action: i === 0 && country !== "SE" ? "accept_all" : "reject_all"
          }),
          { "cf-ipcountry": country }
        )
        expect(answer.status, JSON.stringify(answer.body)).toBe(200)
        saved.push(answer.body.subjectId)
      }
    }
    // Erasure keeps the country: it is not personal data.
    expect((await call(server, "DELETE", `/subjects/${saved[0]}`, undefined, bearer(API_KEY))).status).toBe(200)
    const html = await (await server.fetch(`/insight?from=${isoDay(today)}&to=${isoDay(today)}&domain=${domain}`, {
      headers: bearer(API_KEY)
    })).text()
    expect([...html.matchAll(/<tr data-country="([^"]+)">/g)].map((m) => m[1])).toEqual([...named, "other"])
    for (const country of named) {
      expect(html).toContain(`<tr data-country="${country}"><th scope="row">${country}</th><td>2</td><td>1</td>`)
    }
    expect(html).toContain(`<tr data-country="other"><th scope="row">Other countries</th><td>2</td><td>1</td>`)
  })

  it("labels the chart's y-axis with whole, distinct counts from 0 up to the busiest day or above", async () => {
    const domain = "ticks.example"
    const ticksFor = async () => {
      const html = await (await server.fetch(`/insight?from=${isoDay(today)}&to=${isoDay(today)}&domain=${domain}`, {
        headers: bearer(API_KEY)
      })).text()
      return [...html.matchAll(/<text class="y-tick"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])
    }
    // One decision on the busiest day: the axis read "0, 1, 1" (halves of 1, rounded).
    const saveOne = async (i: number) =>
      expect((await save(server, cookieSave({ givenAt: today + 3_600_000 + i * 1000, domain }))).status).toBe(200)
    expect(await ticksFor()).toEqual(["0", "1"]) // no decision at all: the scale still has a top
    await saveOne(0)
    expect(await ticksFor()).toEqual(["0", "1"])
    for (let i = 1; i < 3; i++) await saveOne(i)
    expect(await ticksFor()).toEqual(["0", "1", "2", "3"]) // not "0, 2, 3"
    for (let i = 3; i < 7; i++) await saveOne(i)
    expect(await ticksFor()).toEqual(["0", "2", "4", "6", "8"])
  })

  it("refuses a bad period with 400 and the spec's body", async () => {
    for (const query of ["from=2025-02-01&to=2025-01-01", "from=2023-01-01&to=2025-01-02",
      "from=yesterday&to=2025-01-01", "from=2025-02-30&to=2025-03-01"])
    {
      const answer = await call(server, "GET", `/insight?${query}`, undefined, bearer(API_KEY))
      expect(answer.status, query).toBe(400)
      expect(answer.body.cause).toEqual({ code: "INVALID_REQUEST" })
    }
    expect((await server.fetch("/insight?from=2023-01-03&to=2025-01-02", { headers: bearer(API_KEY) })).status).toBe(
      200
    )
  })

  it("signs in through its form: a session cookie that is not the key, an Origin that must be this host", async () => {
    const anonymous = await server.fetch("/insight")
    expect(anonymous.status).toBe(401)
    const form = await anonymous.text()
    expect(form).toContain(`<form method="post" action="insight/login"`)
    expect(form).toContain(`<label for="key">`)

    const host = new URL(server.url()).host
    const post = (key: string, origin: string | undefined) =>
      server.fetch("/insight/login", {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", ...(origin === undefined ? {} : { origin }) },
        body: new URLSearchParams({ key }).toString()
      })
    expect((await post(API_KEY, "https://evil.example")).status).toBe(400)
    expect((await post(API_KEY, undefined)).status).toBe(400)
    expect((await post("wrong-key-0123456789abcdef0123456789", `http://${host}`)).status).toBe(401)

    const signedIn = await post(API_KEY, `http://${host}`)
    expect(signedIn.status).toBe(303)
    const cookie = signedIn.headers.get("set-cookie") ?? ""
    expect(cookie).toMatch(
      /^svc_insight=\d+\.[A-Za-z0-9_-]{43}; Path=\/insight; Max-Age=28800; HttpOnly; SameSite=Strict$/
    )
    expect(cookie).not.toContain(API_KEY)
    const session = cookie.split(";")[0]!
    expect((await server.fetch("/insight", { headers: { cookie: session } })).status).toBe(200)
    // A forged or altered session is refused.
    expect(
      (await server.fetch("/insight", { headers: { cookie: session.replace(/.$/, (c) => (c === "A" ? "B" : "A")) } }))
        .status
    ).toBe(401)
    expect(
      (await server.fetch("/insight", {
        headers: { cookie: "svc_insight=9999999999.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }
      })).status
    ).toBe(401)
  })

  it.runIf(dialect === "sqlite" && (existsSync(CHROMIUM) || process.env.CI === "true"))(
    "renders in Chromium at desktop and phone widths, signed in with the keyboard through its form",
    async () => {
      mkdirSync(SCREENSHOTS, { recursive: true })
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--no-sandbox", "--disable-gpu", "--no-first-run"]
      })
      try {
        for (const [name, viewport] of [["desktop", { width: 1280, height: 900 }], ["phone", {
          width: 390,
          height: 844
        }]] as const) {
          const context = await browser.newContext({ viewport })
          const page = await context.newPage()
          await page.goto(`${server.url()}/insight`)
          await page.keyboard.press("Tab")
          expect(await page.evaluate(() => document.activeElement?.id)).toBe("key")
          await page.keyboard.type(API_KEY)
          await Promise.all([page.waitForNavigation(), page.keyboard.press("Enter")])
          await page.waitForLoadState()
          expect(await page.content()).toContain(`id="total-decisions"`)
          expect(Number(await page.textContent("#total-decisions"))).toBeGreaterThan(0)
          expect(await page.locator("svg.chart rect").count()).toBeGreaterThan(0)
          // Every form control has a label.
          expect(
            await page.evaluate(() =>
              [...document.querySelectorAll("input")].every((i) => i.labels !== null && i.labels.length > 0)
            )
          ).toBe(true)
          await page.screenshot({ path: join(SCREENSHOTS, `insight-${name}.png`), fullPage: true })
          await context.close()
        }
      } finally {
        await browser.close()
      }
    },
    60_000
  )
})

describe.each(dialects)("POST /insight/login under rateLimit [%s]", (dialect) => {
  const server = useServer(dialect, { apiKeys: [API_KEY], rateLimit: { admin: { limit: 2 } } })

  it("answers 429 with Retry-After once the administrative limit is used up by one client", async () => {
    const host = new URL(server.url()).host
    const attempt = () =>
      server.fetch("/insight/login", {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: `http://${host}` },
        body: new URLSearchParams({ key: "guess-0123456789abcdef0123456789" }).toString()
      })
    expect((await attempt()).status).toBe(401)
    expect((await attempt()).status).toBe(401)
    const limited = await attempt()
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    expect((await limited.json()).cause).toEqual({ code: "RATE_LIMITED" })
  })
})
