import { readFile, stat } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { type StaticBody, staticBody } from "../http/compression.js"

export type BundleKey = "full" | "headless" | "iab"

const fileNames: Record<BundleKey, string> = {
  full: "svc.js",
  headless: "svc.headless.js",
  iab: "svc.iab.js"
}

/** Where `@svc/browser` writes its bundles, resolved without importing its (browser) source. */
export const defaultBundlePath = (key: BundleKey): string | undefined => {
  try {
    const pkg = createRequire(import.meta.url).resolve("@svc/browser/package.json")
    return join(dirname(pkg), "dist", fileNames[key])
  } catch {
    return undefined
  }
}

/**
 * The one line put before a bundle: backend URL and browser defaults. The JSON is escaped so it
 * can neither close an inline `<script>` element nor break a JavaScript string.
 */
export const embeddedPrelude = (backendURL: string, config: Readonly<Record<string, unknown>>): string =>
  `;window.__SVC_EMBEDDED__=${
    JSON.stringify({ backendURL, config })
      .replace(/</g, "\\u003c")
      .replace(/>/g, "\\u003e")
      .replace(/&/g, "\\u0026")
      .replace(/\u2028/g, "\\u2028")
      .replace(/\u2029/g, "\\u2029")
  };\n`

/** A bundle as served: its bytes with the prelude, strong ETag, compressed once per coding. */
export type ServedBundle = StaticBody

/**
 * Reads a bundle once per file version and prepares one body per backend URL (a handful per
 * deployment), so serving it costs a map lookup and a stat.
 */
export const makeBundleCache = (config: Readonly<Record<string, unknown>>) => {
  const files = new Map<string, { mtimeMs: number; source: string; bodies: Map<string, ServedBundle> }>()
  return async (path: string, backendURL: string): Promise<ServedBundle | undefined> => {
    let info
    try {
      info = await stat(path)
    } catch {
      return undefined
    }
    let entry = files.get(path)
    if (entry === undefined || entry.mtimeMs !== info.mtimeMs) {
      const source = await readFile(path, "utf8").catch(() => undefined)
      if (source === undefined) return undefined
      entry = { mtimeMs: info.mtimeMs, source, bodies: new Map() }
      files.set(path, entry)
    }
    let served = entry.bodies.get(backendURL)
    if (served === undefined) {
      served = staticBody(embeddedPrelude(backendURL, config) + entry.source, "application/javascript; charset=utf-8")
      if (entry.bodies.size < 64) entry.bodies.set(backendURL, served)
    }
    return served
  }
}
