import type { SvcOptions } from "@svc/backend"
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"

const candidates = ["svc.config.ts", "svc.config.mts", "svc.config.mjs", "svc.config.js", "svc.config.json"]

/** The config file to use: the one named, else the first `svc.config.*` in `cwd`, else none. */
export const findConfigFile = (cwd: string, named: string | undefined): string | undefined => {
  if (named !== undefined) {
    const path = resolve(cwd, named)
    if (!existsSync(path)) throw new Error(`config file not found: ${path}`)
    return path
  }
  return candidates.map((name) => resolve(cwd, name)).find((path) => existsSync(path))
}

/** Loads a config module's default export (TypeScript works) or a JSON file. */
export const loadConfig = async (path: string): Promise<SvcOptions> => {
  if (path.endsWith(".json")) return JSON.parse(await readFile(path, "utf8")) as SvcOptions
  const url = pathToFileURL(path).href
  // TypeScript configs go through tsx (Node 20 cannot strip types); plain JavaScript loads natively.
  const mod = (/\.[mc]?ts$/.test(path)
    ? await (await import("tsx/esm/api")).tsImport(url, import.meta.url)
    : await import(url)) as { default?: unknown }
  const options = (mod.default as { default?: unknown } | undefined)?.default ?? mod.default
  if (typeof options !== "object" || options === null) {
    throw new Error(`${path} must export the options object as its default export`)
  }
  return options as SvcOptions
}

/** `SVC_DATABASE_URL` replaces `database.url` (it never changes the dialect). */
export const withDatabaseUrl = (options: SvcOptions, url: string | undefined): SvcOptions =>
  url === undefined || url === "" || "layer" in options.database
    ? options
    : { ...options, database: { ...options.database, url } }
