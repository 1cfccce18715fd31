// `node scripts/container/runtime-files.mjs OUT`, in the Dockerfile's build stage after
// `npm run build:runtime`: copies into OUT what `svc serve` reads at run time and nothing else
// (docs/adr/0092-container-image.md):
//
// - the svc command (packages/server: bin, the bundle dist/cli.mjs, the demo's vendor list), the
//   location table (packages/backend/data) and the browser bundles (packages/browser/dist), each
//   with its package.json and linked under node_modules/@svc/ as npm links a workspace;
// - the third-party packages the bundle loads (dist/cli.packages.json, written by build.mjs from
//   esbuild's metafile) and, transitively, their dependencies and installed optional dependencies,
//   each from where Node would resolve it. effect and @effect/* are inlined in the bundle, so they
//   are not among them (but @effect/platform, whose files /docs reads).
//
// better-sqlite3 keeps what a prebuilt install holds (its JavaScript and the compiled addon), not
// the SQLite sources and object files of the build.
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const root = resolve(import.meta.dirname, "../..")
const out = resolve(process.argv[2] ?? "")
if (process.argv[2] === undefined) throw new Error("usage: node scripts/container/runtime-files.mjs OUT")

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"))

/** Where Node resolves package `name` from a file in `from`: the nearest node_modules/name upwards. */
const resolvePackage = (name, from) => {
  for (let dir = from; dir.startsWith(root); dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name)
    if (existsSync(join(candidate, "package.json"))) return candidate
    if (dir === root) break
  }
  return undefined
}

/** Files kept of a package whose install leaves build intermediates behind. */
const slim = {
  "better-sqlite3": ["package.json", "LICENSE", "lib", "build/Release/better_sqlite3.node"]
}

const copyPackage = (dir) => {
  const target = join(out, relative(root, dir))
  const name = readJson(join(dir, "package.json")).name
  const keep = slim[name]
  if (keep === undefined) {
    // Its own nested node_modules are copied when (and if) a dependency resolves there.
    cpSync(dir, target, { recursive: true, filter: (path) => path !== join(dir, "node_modules") })
  } else {
    for (const path of keep) cpSync(join(dir, path), join(target, path), { recursive: true })
  }
}

const seen = new Set()
const queue = readJson(join(root, "packages/server/dist/cli.packages.json")).map((name) => ({
  name,
  from: join(root, "packages/server"),
  optional: false
}))
// ws (inlined) tries bufferutil and utf-8-validate and runs without them.
const optionalImports = new Set(["bufferutil", "utf-8-validate"])
while (queue.length > 0) {
  const { from, name, optional } = queue.shift()
  const dir = resolvePackage(name, from)
  if (dir === undefined) {
    if (optional || optionalImports.has(name)) continue
    throw new Error(`runtime-files: ${name} (needed from ${relative(root, from)}) is not installed`)
  }
  if (seen.has(dir)) continue
  seen.add(dir)
  copyPackage(dir)
  const manifest = readJson(join(dir, "package.json"))
  for (const dep of Object.keys(manifest.dependencies ?? {})) queue.push({ name: dep, from: dir, optional: false })
  for (const dep of Object.keys(manifest.optionalDependencies ?? {}))
    queue.push({ name: dep, from: dir, optional: true })
}

const workspace = {
  server: ["package.json", "bin", "demo", "dist/cli.mjs"],
  backend: ["package.json", "data"],
  browser: ["package.json", "dist"]
}
mkdirSync(join(out, "node_modules/@svc"), { recursive: true })
for (const [name, paths] of Object.entries(workspace)) {
  for (const path of paths) {
    cpSync(join(root, "packages", name, path), join(out, "packages", name, path), { recursive: true })
  }
  symlinkSync(`../../packages/${name}`, join(out, "node_modules/@svc", name))
}
console.log(`runtime-files: ${seen.size} packages and the svc command in ${out}`)
