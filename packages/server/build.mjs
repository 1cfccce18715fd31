// Bundles the svc command into dist/cli.mjs, so `svc serve` runs plain JavaScript: no TypeScript
// loader in the server process.
//
// Effect, the @effect/* packages and @iabgpp/cmpapi are inlined: they are ESM without side
// effects, so esbuild keeps only what svc uses (with svc's imports of their namespaces rewritten,
// see namespaceImports). Left external, Node loads each package's whole index (every module
// of `effect`, fast-check through it, @effect/platform's 3.3 MB Scalar and 1.7 MB Swagger UI
// sources, the cluster and RPC packages): ~50 MB more memory held for the life of the process
// (docs/adr/0002-the-svc-command-runs-one-bundle.md). One file, no chunks: a process started
// before a rebuild never finds its lazily loaded chunk gone. What only a dynamic import reaches
// (the PostgreSQL and MySQL clients) is evaluated when that path runs.
//
// External: the third-party packages @svc/server declares (each loaded where it is used) and the
// database drivers (better-sqlite3 is native; pg and mysql2 are what a user upgrades). The bundle
// imports nothing else: `npm run pack:all` and examples/test/manifests.test.ts check that
// packages/server/package.json declares each of them.
import { build } from "esbuild"
import { readFileSync, writeFileSync } from "node:fs"
import { builtinModules, createRequire } from "node:module"
import { dirname, join } from "node:path"

const manifest = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"))
const inlined = (name) =>
  name === "effect" || name.startsWith("@effect/") || name.startsWith("@svc/") || name === "@iabgpp/cmpapi"
/** The packages the bundle imports instead of inlining. */
const external = Object.keys(manifest.dependencies ?? {}).filter((name) => !inlined(name)).concat("@svc/browser")
const packageOf = (specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")
/**
 * CommonJS drivers only the PostgreSQL or the MySQL client uses. Bundled ESM hoists an external
 * import to the top of the file, which would load them in every server; as `require` calls they
 * load when that client is first made.
 */
const onDemand = new Set(["pg", "pg-connection-string", "pg-cursor", "mysql2"])

/**
 * `import { Effect, Layer } from "effect"` names namespaces the package index re-exports
 * (`export * as Effect from "./Effect.js"`); esbuild then builds each namespace object whole, with
 * every function of the module and all they import (Effect alone pulled in fast-check, msgpackr
 * and, through NodeHttpServer.layerTest, undici). Rewritten in svc's own sources to
 * `import * as Effect from "effect/Effect"`, which esbuild trims to the members used: the bundle
 * goes from 4.3 to 2.1 MB. Only how a name is imported changes, never which module it names.
 */
const namespaceImports = () => {
  const require = createRequire(import.meta.url)
  const namespaces = new Map()
  for (const pkg of ["effect", "@effect/platform", "@effect/platform-node", "@effect/sql", "@effect/experimental",
    "@effect/opentelemetry"])
  {
    const index = readFileSync(join(dirname(require.resolve(`${pkg}/package.json`)), "dist/esm/index.js"), "utf8")
    namespaces.set(
      pkg,
      new Set(
        [...index.matchAll(/export \* as (\w+) from "\.\/(\w+)\.js"/g)].filter((m) => m[1] === m[2]).map((m) => m[1])
      )
    )
  }
  const rewrite = (source) =>
    source.replace(/import\s*\{([^}]*)\}\s*from\s*"(effect|@effect\/[a-z-]+)"/g, (whole, names, pkg) => {
      const own = namespaces.get(pkg)
      if (own === undefined) return whole
      const statements = []
      const rest = []
      for (const name of names.split(",").map((n) => n.trim()).filter(Boolean)) {
        const m = /^(\w+)(?:\s+as\s+(\w+))?$/.exec(name)
        if (m !== null && own.has(m[1])) statements.push(`import * as ${m[2] ?? m[1]} from "${pkg}/${m[1]}"`)
        else rest.push(name)
      }
      if (rest.length > 0) statements.push(`import { ${rest.join(", ")} } from "${pkg}"`)
      return statements.join("; ")
    })
  return {
    name: "svc-namespace-imports",
    setup(builder) {
      builder.onLoad({ filter: /\/packages\/(schema|api|backend|server)\/src\/.*\.ts$/ }, (args) => ({
        contents: rewrite(readFileSync(args.path, "utf8")),
        loader: "ts"
      }))
    }
  }
}

const result = await build({
  entryPoints: [new URL("./src/cli.ts", import.meta.url).pathname],
  outfile: new URL("./dist/cli.mjs", import.meta.url).pathname,
  // Strings and regular expressions as ASCII escapes (see the end of this file for comments).
  charset: "ascii",
  bundle: true,
  // Workspace packages are bundled from their TypeScript source.
  conditions: ["@svc/source"],
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  // Without white space and comments: V8 keeps the whole source of a module for the process's life
  // (to compile its functions lazily), and the positions of its line ends once a stack trace is
  // read: ~1 MB of the idle heap (#26). Names are kept, so stack traces still name functions;
  // the source map gives the file and line.
  minifyWhitespace: true,
  // Inlined CommonJS (ws, which @effect/platform-node uses) calls `require`.
  banner: {
    js:
      'import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);'
  },
  plugins: [namespaceImports(), {
    name: "svc-external",
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.namespace === "svc-on-demand") return { path: args.path, external: true }
        const name = packageOf(args.path)
        if (onDemand.has(name)) return { path: args.path, namespace: "svc-on-demand" }
        return external.includes(name) ? { path: args.path, external: true } : undefined
      })
      builder.onLoad({ filter: /.*/, namespace: "svc-on-demand" }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)})`,
        loader: "js"
      }))
    }
  }],
  metafile: true,
  logLevel: "warning"
})

// The third-party packages the bundle loads, for the container image, which holds only these and
// what they need (scripts/container/runtime-files.mjs): those it imports (statically, dynamically
// or by `require`, as esbuild's metafile lists them), and those it reaches through a path resolved
// at run time, which esbuild cannot see: `canonicalize` (required through createRequire,
// transparency/leaf.ts) and @effect/platform (the /docs UI script read from its files, openapi.ts).
const loaded = new Set(["canonicalize", "@effect/platform"])
for (const output of Object.values(result.metafile.outputs)) {
  for (const { external, path } of output.imports) {
    if (external && !path.startsWith("node:") && !builtinModules.includes(path)) loaded.add(packageOf(path))
  }
}
writeFileSync(new URL("./dist/cli.packages.json", import.meta.url), `${JSON.stringify([...loaded].sort(), null, 2)}\n`)

// esbuild escapes non-ASCII text in strings but keeps it in the comments it preserves: one
// such character makes V8 hold the whole source as two-byte text (twice its size).
const outfile = new URL("./dist/cli.mjs", import.meta.url)
const text = readFileSync(outfile, "utf8")
if (/[^\x00-\x7f]/.test(text)) {
  writeFileSync(outfile, text.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`))
}
