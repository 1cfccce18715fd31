import { existsSync, readFileSync } from "node:fs"
import { isAbsolute } from "node:path"
import { gzipSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import { bundleFiles } from "../src/index.js"

describe("bundleFiles", () => {
  it("names the three built bundles by absolute path", () => {
    for (const key of ["full", "headless", "iab"] as const) {
      expect(isAbsolute(bundleFiles[key])).toBe(true)
      expect(existsSync(bundleFiles[key]), `${bundleFiles[key]} (run npm run build -w @svc/browser)`).toBe(true)
    }
    expect(bundleFiles.full.endsWith("/dist/svc.js")).toBe(true)
    expect(bundleFiles.headless.endsWith("/dist/svc.headless.js")).toBe(true)
    expect(bundleFiles.iab.endsWith("/dist/svc.iab.js")).toBe(true)
  })

  it("keeps the bundles within their gzip budgets and the headless one free of UI and IAB code", () => {
    const gz = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length
    expect(gz(bundleFiles.full)).toBeLessThanOrEqual(30 * 1024)
    expect(gz(bundleFiles.headless)).toBeLessThanOrEqual(12 * 1024)
    const headless = readFileSync(bundleFiles.headless, "utf8")
    expect(headless).not.toContain("svc-consent")
    expect(headless).not.toContain("__tcfapi")
    expect(readFileSync(bundleFiles.full, "utf8")).not.toContain("__tcfapi")
    expect(readFileSync(bundleFiles.iab, "utf8")).toContain("__tcfapi")
    expect(readFileSync(bundleFiles.iab, "utf8")).toContain("__gpp")
    expect(headless).not.toContain("__gpp")
    expect(readFileSync(bundleFiles.full, "utf8")).not.toContain("__gpp")
  })

  it("ships no embedded defaults of its own: the script route adds that line", () => {
    for (const key of ["full", "headless", "iab"] as const) {
      expect(readFileSync(bundleFiles[key], "utf8").startsWith(";window.__SVC_EMBEDDED__")).toBe(false)
    }
  })
})
