// The demo `svc serve` runs with no config: signed policy snapshots (a key kept beside the database
// file), a bundled vendor list for the IAB rule, and a /demo page that shows the stored record.
// The page itself runs in headless Chromium when /usr/bin/chromium is there (CI always has it).
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { chromium, type Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { demoOptions, demoSigningKey } from "../src/demo.js"
import { type RunningServer, startServer } from "../src/start.js"

const CHROMIUM = "/usr/bin/chromium"
const withBrowser = existsSync(CHROMIUM) || process.env.CI === "true"
if (!withBrowser) console.warn(`demo page in Chromium skipped: no ${CHROMIUM}; CI always runs it`)

const preferences = { necessary: true, measurement: true, marketing: false, functionality: false, experience: false }
const newSubjectId = () => `sub_${crypto.randomUUID().replaceAll("-", "")}`

let server: RunningServer
const folders: Array<string> = []
const tempFolder = (prefix: string) => {
  const folder = mkdtempSync(join(tmpdir(), prefix))
  folders.push(folder)
  return folder
}

beforeAll(async () => {
  const dir = tempFolder("svc-demo-")
  server = await startServer({ ...demoOptions(join(dir, "svc.db")), observability: { requests: "none" } }, {
    port: 0,
    host: "127.0.0.1",
    demoPage: true
  })
})
afterAll(async () => {
  await server?.close()
  for (const folder of folders) rmSync(folder, { recursive: true, force: true })
})

const json = async (path: string, init?: RequestInit) => {
  const response = await fetch(`${server.url}${path}`, init)
  return { status: response.status, body: (await response.json()) as any }
}

const saveFrom = async (country: string) => {
  const init = await json(`/init?country=${country}`)
  const subjectId = newSubjectId()
  const saved = await json("/subjects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      type: "cookie_banner",
      domain: "127.0.0.1",
      subjectId,
      givenAt: Date.now(),
      preferences,
      policySnapshotToken: init.body.policySnapshotToken
    })
  })
  return { init, saved, record: await json(`/subjects/${subjectId}`) }
}

describe("demo signing key", () => {
  it("is generated beside the database file on first run, owner-only, and read back after", () => {
    const db = join(tempFolder("svc-demo-key-"), "svc.db")
    const key = demoSigningKey(db)
    expect(Buffer.byteLength(key)).toBeGreaterThanOrEqual(32)
    expect(statSync(`${db}.key`).mode & 0o777).toBe(0o600)
    expect(demoSigningKey(db)).toBe(key)
    expect(demoSigningKey(":memory:")).not.toBe(demoSigningKey(":memory:"))
  })

  it("svc serve with no config writes it and never prints it", async () => {
    const cwd = tempFolder("svc-demo-cli-")
    const bin = fileURLToPath(new URL("../bin/svc.js", import.meta.url))
    const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--host", "127.0.0.1"], { cwd })
    let output = ""
    await new Promise<void>((resolve, reject) => {
      const onData = (d: Buffer) => {
        output += d
        if (output.includes("svc listening on")) resolve()
      }
      child.stdout.on("data", onData)
      child.stderr.on("data", onData)
      child.on("exit", (code) => reject(new Error(`exited ${code}: ${output}`)))
    })
    const url = /svc listening on (\S+)/.exec(output)![1]!
    const init = (await (await fetch(`${url}/init?country=DE`)).json()) as { policySnapshotToken?: string }
    expect(init.policySnapshotToken).toBeTypeOf("string")
    child.kill("SIGTERM")
    await new Promise((resolve) => child.on("exit", resolve))
    const key = readFileSync(join(cwd, "svc.db.key"), "utf8").trim()
    expect(statSync(join(cwd, "svc.db.key")).mode & 0o777).toBe(0o600)
    expect(output).not.toContain(key)
  })
})

describe("demo configuration over HTTP", () => {
  it("a save records the rule, fingerprint and snapshot it was made under", async () => {
    const { init, saved, record } = await saveFrom("DE")
    expect(init.body.policyResolution).toMatchObject({ status: "matched", policyId: "eu-opt-in" })
    expect(saved.status).toBe(200)
    expect(saved.body.runtimePolicySource).toBe("snapshot_token")
    expect(record.body.consents).toEqual([
      expect.objectContaining({
        policyId: "eu-opt-in",
        policyFingerprint: init.body.policy.fingerprint,
        runtimePolicySource: "snapshot_token"
      })
    ])
    expect(init.body.policy.fingerprint).toMatch(/\S{8,}/)
  })

  it("the IAB rule carries the bundled vendor list", async () => {
    const { init, record } = await saveFrom("FR")
    expect(init.body.policyResolution.policyId).toBe("eu-iab")
    expect(Object.keys(init.body.gvl.vendors).sort()).toEqual(["1001", "1002", "1003"])
    expect(record.body.consents[0]).toMatchObject({ policyId: "eu-iab", runtimePolicySource: "snapshot_token" })
  })

  it("/demo loads svc.js, and svc.iab.js for the IAB link", async () => {
    const plain = await (await fetch(`${server.url}/demo?country=DE`)).text()
    expect(plain).toContain(`<script src="/svc.js" async></script>`)
    expect(plain).toContain(`href="?country=FR&amp;bundle=iab"`)
    const iab = await (await fetch(`${server.url}/demo?country=FR&bundle=iab`)).text()
    expect(iab).toContain(`<script src="/svc.iab.js" async></script>`)
    const forged = await (await fetch(`${server.url}/demo?bundle=%22%3E%3Cscript%3E`)).text()
    expect(forged).toContain(`<script src="/svc.js" async></script>`)
    expect(forged).not.toContain('"><script>')
  })
})

describe.runIf(withBrowser)("demo page in Chromium", () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run"]
    })
  })
  afterAll(() => browser?.close())

  const acceptAllAndReadRecord = async (query: string) => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${server.url}/demo?${query}`)
    await page.waitForFunction(() => (window as any).svc?.init != null)
    await page.evaluate(() => (window as any).svc.acceptAll({ surface: "banner" }))
    await page.waitForFunction(() => document.getElementById("record")!.textContent!.includes("policyFingerprint"))
    const record = JSON.parse((await page.textContent("#record"))!)
    return { page, context, record }
  }

  it("Germany: after Accept all the page shows the stored record with its rule and fingerprint", async () => {
    const { context, record } = await acceptAllAndReadRecord("country=DE")
    expect(record).toMatchObject({ policyId: "eu-opt-in", runtimePolicySource: "snapshot_token" })
    expect(record.policyFingerprint).toBeTypeOf("string")
    expect(record.preferences).toMatchObject({ measurement: true, marketing: true })
    await context.close()
  })

  it("the banner never covers the page's own buttons, at phone and desktop sizes", async () => {
    for (const viewport of [{ width: 390, height: 664 }, { width: 1280, height: 720 }]) {
      const context = await browser.newContext({ viewport })
      const page = await context.newPage()
      await page.goto(`${server.url}/demo?country=DE`)
      const banner = page.locator("#svc-consent [data-svc=banner]")
      await banner.waitFor()
      // What a visitor can reach: scrolled to the end, the element under each button's centre is the button.
      const reachable = () =>
        page.evaluate(() => {
          window.scrollTo(0, document.documentElement.scrollHeight)
          return [...document.querySelectorAll("body > p > button")].map((button) => {
            const box = button.getBoundingClientRect()
            return document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2) === button
          })
        })
      expect(await reachable(), `${viewport.width}px`).toEqual([true, true])
      const bannerBox = (await banner.boundingBox())!
      const reserved = await page.evaluate(() =>
        getComputedStyle(document.documentElement).getPropertyValue("--svc-banner-height")
      )
      expect(Number.parseInt(reserved)).toBeGreaterThanOrEqual(Math.floor(bannerBox.height))
      // Once the visitor has chosen, the page takes its space back.
      await page.evaluate(() => (window as any).svc.acceptAll({ surface: "banner" }))
      await banner.waitFor({ state: "detached" })
      expect(await page.evaluate(() => document.documentElement.style.getPropertyValue("--svc-banner-height"))).toBe("")
      await context.close()
    }
  })

  it("France loads svc.iab.js: __tcfapi reports gdprApplies with the bundled vendor list", async () => {
    const { page, context, record } = await acceptAllAndReadRecord("country=FR&bundle=iab")
    expect(record).toMatchObject({ policyId: "eu-iab", runtimePolicySource: "snapshot_token" })
    const tcData = await page.evaluate(() =>
      new Promise<any>((resolve) => (window as any).__tcfapi("getTCData", 2, (data: unknown) => resolve(data)))
    )
    expect(tcData.gdprApplies).toBe(true)
    expect(tcData.tcString).toMatch(/^C/)
    expect(Object.keys(tcData.vendor.consents).sort()).toEqual(["1001", "1002", "1003"])
    await page.waitForFunction(() => document.getElementById("tcf")!.textContent!.includes("gdprApplies"))
    expect(JSON.parse((await page.textContent("#tcf"))!)).toMatchObject({ gdprApplies: true })
    await context.close()
  })
})
