// Bundles the svc command (and the workspace packages it uses) into dist/cli.mjs, so `svc serve`
// runs plain JavaScript: no TypeScript loader in the server process. Dependencies from
// node_modules stay external.
import { build } from "esbuild"
import { readFileSync } from "node:fs"

// The bundle imports the dependencies of every package it inlines; they stay external. An
// installed @svc/server must declare each of them itself: `npm run pack:all` and
// examples/test/manifests.test.ts check that it does.
const manifest = (pkg) => JSON.parse(readFileSync(new URL(`../${pkg}/package.json`, import.meta.url), "utf8"))
const external = new Set()
for (const pkg of ["server", "backend", "api", "schema"]) {
  for (const name of Object.keys(manifest(pkg).dependencies ?? {})) if (!name.startsWith("@svc/")) external.add(name)
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
