// `npm run pack:all [-- --out DIR]`: builds every package and writes one `npm pack` tarball per
// publishable package to dist-packages/ (or DIR). Fails when a package's manifest names a file
// (exports, main, types, bin) that its tarball would not contain, or when versions drift apart.
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"
import { parseArgs } from "node:util"

/** In dependency order; @svc/browser ships because @svc/backend serves its bundles. */
export const PUBLISHED = ["schema", "api", "browser", "backend", "server", "client"] as const

const root = resolve(import.meta.dirname, "..")

interface Manifest {
  readonly name: string
  readonly version: string
  readonly main?: string
  readonly types?: string
  readonly bin?: Record<string, string>
  readonly exports?: unknown
  readonly dependencies?: Record<string, string>
}

const manifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as Manifest

/** Every file path a manifest points at. */
const targets = (pkg: Manifest): Array<string> => {
  const out: Array<string> = []
  const walk = (value: unknown) => {
    if (typeof value === "string") out.push(value)
    else if (value !== null && typeof value === "object") { for (const inner of Object.values(value)) walk(inner) }
  }
  walk(pkg.exports)
  walk(pkg.bin)
  if (pkg.main !== undefined) out.push(pkg.main)
  if (pkg.types !== undefined) out.push(pkg.types)
  return out.map((path) => path.replace(/^\.\//, ""))
}

/** Problems that would make the tarballs unusable together; empty when there are none. */
export const checkManifests = (): Array<string> => {
  const problems: Array<string> = []
  const version = manifest(PUBLISHED[0]).version
  for (const dir of PUBLISHED) {
    const pkg = manifest(dir)
    if (pkg.version !== version)
      problems.push(`${pkg.name} is ${pkg.version}, not ${version}: the packages move together`)
    for (const [name, range] of Object.entries(pkg.dependencies ?? {})) {
      if (name.startsWith("@svc/") && range !== version)
        problems.push(`${pkg.name} depends on ${name}@${range}, not ${version}`)
    }
  }
  // dist/cli.mjs inlines these packages' code, so it imports their dependencies itself.
  const server = manifest("server")
  for (const dir of ["backend", "api", "schema"]) {
    for (const [name, range] of Object.entries(manifest(dir).dependencies ?? {})) {
      if (name.startsWith("@svc/")) continue
      if (server.dependencies?.[name] !== range) {
        problems.push(
          `@svc/server's bundle inlines @svc/${dir}, which imports ${name}: declare "${name}": "${range}" in packages/server/package.json`
        )
      }
    }
  }
  return problems
}

const pack = (dir: string, out: string): string => {
  const pkg = manifest(dir)
  const [result] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
      cwd: join(root, "packages", dir),
      encoding: "utf8"
    })
  ) as Array<{ filename: string; files: Array<{ path: string }> }>
  const files = new Set(result!.files.map((file) => file.path))
  const missing = targets(pkg).filter((path) => !files.has(path))
  if (missing.length > 0)
    throw new Error(`${pkg.name}: its manifest names files its tarball lacks: ${missing.join(", ")}`)
  return join(out, result!.filename)
}

/** Builds everything, then packs each published package into `out`; returns the tarball paths. */
export const packAll = (out: string, options: { readonly build?: boolean } = {}): Array<string> => {
  const problems = checkManifests()
  if (problems.length > 0) throw new Error(problems.join("\n"))
  if (options.build !== false) execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" })
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  return PUBLISHED.map((dir) => pack(dir, out))
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({ options: { out: { type: "string" }, "no-build": { type: "boolean" } } })
  const out = resolve(root, values.out ?? "dist-packages")
  try {
    for (const file of packAll(out, { build: values["no-build"] !== true })) console.log(file)
  } catch (error) {
    console.error(`pack:all: ${(error as Error).message}`)
    process.exit(1)
  }
}
