// Bundles the svc command (and the workspace packages it uses) into dist/cli.mjs, so `svc serve`
// runs plain JavaScript: no TypeScript loader in the server process. Dependencies from
// node_modules stay external.
import { build } from "esbuild"
import { readFileSync } from "node:fs"

// The bundle imports the dependencies of every package it inlines, so an installed @svc/server
// must declare each of them itself: the build fails when one is missing.
const manifest = (pkg) => JSON.parse(readFileSync(new URL(`../${pkg}/package.json`, import.meta.url), "utf8"))
const declared = manifest("server").dependencies ?? {}
const external = new Set(Object.keys(declared).filter((name) => !name.startsWith("@svc/")))
for (const pkg of ["backend", "api", "schema"]) {
  for (const name of Object.keys(manifest(pkg).dependencies ?? {})) {
    if (!name.startsWith("@svc/") && !(name in declared)) {
      console.error(`@svc/server bundles @svc/${pkg}, which imports ${name}: add it to packages/server/package.json dependencies`)
      process.exit(1)
    }
  }
}

await build({
  entryPoints: [new URL("./src/cli.ts", import.meta.url).pathname],
  outfile: new URL("./dist/cli.mjs", import.meta.url).pathname,
  bundle: true,
  // Workspace packages are bundled from their TypeScript source.
  conditions: ["@svc/source"],
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "linked",
  external: [...external, "@effect/*", "@svc/browser"],
  logLevel: "warning"
})
