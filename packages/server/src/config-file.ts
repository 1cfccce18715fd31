import { databaseUrlProblem, SvcConfigurationError, type SvcOptions } from "@svc/backend"
import type { Message } from "esbuild"
import { Predicate } from "effect"
import { spawnSync } from "node:child_process"
import { builtinModules } from "node:module"
import { existsSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { resolve } from "node:path"
import { pathToFileURL } from "node:url"

const candidates = ["svc.config.ts", "svc.config.mts", "svc.config.mjs", "svc.config.js", "svc.config.json"]

/**
 * The config file to use: the one named, else the first `svc.config.*` in `cwd`, else none.
 * Throws when the named file does not exist.
 *
 * @example
 * ```ts
 * import { findConfigFile } from "@svc/server"
 *
 * // What `svc serve` looks for first: the file named by --config (here an env variable), else ./svc.config.*.
 * const path = findConfigFile(process.cwd(), process.env.SVC_CONFIG)
 * console.log(path ?? "no svc.config.* here: `svc serve` would run the demo")
 * ```
 */
export const findConfigFile = (cwd: string, named: string | undefined): string | undefined => {
  if (named !== undefined) {
    const path = resolve(cwd, named)
    if (!existsSync(path)) throw new Error(`config file not found: ${path}`)
    return path
  }
  return candidates.map((name) => resolve(cwd, name)).find((path) => existsSync(path))
}

/** A config file that does not load: names the file, and the line and column when it is a syntax error. */
const unloadable = (path: string, reason: string, line?: number, column?: number) =>
  new Error(
    `cannot load the config file ${path}${
      line === undefined ? "" : `:${line}${column === undefined ? "" : `:${column}`}`
    }: ${reason}`
  )

/** `JSON.parse`'s "at position N" as a line and column. */
const jsonSyntaxError = (path: string, text: string, error: Error) => {
  const position = /at position (\d+)/.exec(error.message)
  const reason = error.message.replace(/\s*in JSON at position \d+.*$/s, "").replace(/\s*\(line \d+ column \d+\)$/, "")
  if (position === null) return unloadable(path, reason)
  const before = text.slice(0, Number(position[1]))
  const line = before.split("\n").length
  return unloadable(path, reason, line, Number(position[1]) - before.lastIndexOf("\n"))
}

/**
 * Where a JavaScript config's syntax error is: Node's import error carries no location, but
 * `node --check` prints `file:LINE`, the line and a caret under the column.
 */
const javascriptSyntaxError = (path: string, error: Error) => {
  const check = spawnSync(process.execPath, ["--check", path], { encoding: "utf8", timeout: 10_000 })
  const lines = (check.stderr ?? "").split("\n")
  const at = lines.findIndex((line) => line.endsWith(`:${/:(\d+)$/.exec(line)?.[1]}`) && line.includes(path))
  const line = at === -1 ? undefined : Number(/:(\d+)$/.exec(lines[at]!)![1])
  const caret = at === -1 ? -1 : (lines[at + 2] ?? "").indexOf("^")
  return unloadable(path, error.message, line, caret === -1 ? undefined : caret + 1)
}

/**
 * Imports a TypeScript config as Node imports the same file written as `.mjs`. esbuild compiles it
 * (its own relative imports bundled in, packages left to Node, which resolves each from the
 * config's folder exactly as for a `.mjs` config) to one ES module that is imported from memory.
 * Then esbuild's service process is stopped: nothing of the compiler stays in the server, and the
 * config is ESM whatever the project's `"type"` says. In the `svc` command, `@svc/backend` and
 * `@svc/schema` are the exception: the config gets the running bundle's own (ADR 0094).
 */
const packageLookup = { svc: "package" }

/** The first of esbuild's messages a failed build carries. */
const firstMessage = (error: unknown): Message | undefined =>
  Predicate.hasProperty(error, "errors") && Array.isArray(error.errors) ? error.errors[0] : undefined

/**
 * Where the `svc` command registers the packages a config shares with its bundle
 * (`globalThis[Symbol.for("svc.configSharedModules")]`: package name to the bundle's module
 * namespace, set by shared-modules.ts; the library never sets it).
 */
const sharedModulesName = "svc.configSharedModules"

/** The registry's symbol, for shared-modules.ts. */
export const sharedModulesKey = Symbol.for(sharedModulesName)

/** The packages the running `svc` command shares with configs, when it registered them. */
const sharedModules = (): Readonly<Record<string, object>> | undefined => {
  const registry: unknown = Reflect.get(globalThis, sharedModulesKey)
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- only shareModulesWithConfigs defines it (frozen, not writable)
  return typeof registry === "object" && registry !== null ? registry as Record<string, object> : undefined
}

/** The esbuild namespace of the packages a config shares with the running `svc` bundle. */
const runningBundle = "svc-running-bundle"

/** A module that re-exports a shared package's values from the registry. */
const sharedModuleSource = (name: string, exported: ReadonlyArray<string>) =>
  `const shared = globalThis[Symbol.for(${JSON.stringify(sharedModulesName)})][${JSON.stringify(name)}]\n` +
  `export const { ${exported.join(", ")} } = shared\n`

const importTypeScript = async (path: string): Promise<unknown> => {
  const esbuild = await import("esbuild")
  const shared = sharedModules()
  const url = pathToFileURL(path).href
  let code: string
  try {
    const result = await esbuild.build({
      entryPoints: [path],
      bundle: true,
      write: false,
      format: "esm",
      platform: "node",
      target: "node20",
      logLevel: "silent",
      define: { "import.meta.url": JSON.stringify(url) },
      // Resolve packages as Node does for an ES module: no "module" condition, `main` before `module`.
      conditions: [],
      mainFields: ["main"],
      plugins: [{
        name: "svc-config-packages",
        setup: (build) => {
          // A package import stays an import, of the file it resolves to from the config's folder (a
          // module imported from memory has no folder to resolve from). In the `svc` command, the
          // packages it shares (shared-modules.ts) are the running bundle's own instead.
          build.onResolve({ filter: /^[^./]/ }, async (args) => {
            if (args.pluginData === packageLookup || builtinModules.includes(args.path.replace(/^node:/, ""))) return
            if (shared?.[args.path] !== undefined) return { path: args.path, namespace: runningBundle }
            const found = await build.resolve(args.path, {
              kind: args.kind,
              resolveDir: args.resolveDir,
              pluginData: packageLookup
            })
            return found.errors.length > 0
              ? { errors: found.errors }
              : { path: pathToFileURL(found.path).href, external: true }
          })
          build.onLoad({ filter: /.*/, namespace: runningBundle }, (args) => ({
            contents: sharedModuleSource(args.path, Object.keys(shared?.[args.path] ?? {})),
            loader: "js"
          }))
        }
      }]
    })
    code = result.outputFiles[0]?.text ?? ""
  } catch (error) {
    const first = firstMessage(error)
    if (first === undefined) throw unloadable(path, error instanceof Error ? error.message : String(error))
    throw unloadable(path, first.text, first.location?.line, first.location ? first.location.column + 1 : undefined)
  } finally {
    await esbuild.stop()
  }
  return import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`)
}

/**
 * Loads a config module's default export (TypeScript works) or a JSON file. A syntax error names
 * the file, line and column.
 *
 * @example
 * ```ts
 * import { resolveOptions } from "@svc/backend"
 * import { loadConfig } from "@svc/server"
 *
 * // A CI step checks the config before a deploy: SvcConfigurationError lists every problem at once.
 * const options = await loadConfig("deploy/svc.config.ts")
 * const resolved = resolveOptions(options)
 * console.log(`config ok: ${resolved.manifest.policyRules.length} policy rules`)
 * ```
 */
export const loadConfig = async (path: string): Promise<SvcOptions> => {
  if (path.endsWith(".json")) {
    const text = await readFile(path, "utf8")
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      throw error instanceof Error ? jsonSyntaxError(path, text, error) : unloadable(path, String(error))
    }
    return optionsIn(parsed, `${path} must hold the options object (a JSON object)`)
  }
  const isTypeScript = /\.[mc]?ts$/.test(path)
  let mod: unknown
  try {
    // Node 20 cannot strip types: TypeScript configs are compiled first; plain JavaScript loads natively.
    mod = isTypeScript ? await importTypeScript(path) : await import(pathToFileURL(path).href)
  } catch (error) {
    if (isTypeScript && error instanceof Error && error.message.startsWith("cannot load the config file")) throw error
    if (!isTypeScript && error instanceof SyntaxError) throw javascriptSyntaxError(path, error)
    throw unloadable(path, error instanceof Error ? error.message : String(error))
  }
  // A CommonJS config imported as ESM has its `module.exports` as the default export.
  const exported = propertyOf(mod, "default")
  return optionsIn(
    propertyOf(exported, "default") ?? exported,
    `${path} must export the options object as its default export`
  )
}

/**
 * A loaded config as options: an object, else `problem`. Its fields are `resolveOptions`'s to check
 * (every problem at once, as an `SvcConfigurationError`), so no shape is asserted here.
 */
const optionsIn = (value: unknown, problem: string): SvcOptions => {
  if (typeof value !== "object" || value === null) throw new Error(problem)
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- a config file is user input: resolveOptions checks every field and lists each problem, which a decode here would duplicate
  return value as SvcOptions
}

const propertyOf = (value: unknown, key: PropertyKey): unknown =>
  Predicate.hasProperty(value, key) ? value[key] : undefined

/**
 * `SVC_DATABASE_URL` replaces `database.url` (it never changes the dialect). A value that is not a
 * URL for the dialect is reported by the variable's name (never its value: it may hold a password).
 *
 * @example
 * ```ts
 * import { loadConfig, startServer, withDatabaseUrl } from "@svc/server"
 *
 * // Staging serves the production config against its own database, as `svc serve` would.
 * const options = withDatabaseUrl(await loadConfig("svc.config.ts"), process.env.SVC_DATABASE_URL)
 * const server = await startServer(options, { port: 8080 })
 * ```
 */
export const withDatabaseUrl = (options: SvcOptions, url: string | undefined): SvcOptions => {
  if (
    url === undefined || url === "" || typeof options.database !== "object" || options.database === null ||
    "layer" in options.database
  ) {
    return options
  }
  const problem = databaseUrlProblem(options.database.dialect, url)
  if (problem !== undefined) throw new SvcConfigurationError([`SVC_DATABASE_URL: ${problem}`])
  return { ...options, database: { ...options.database, url } }
}
