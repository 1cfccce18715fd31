// Bundles the svc command (and the workspace packages it uses) into dist/cli.mjs, so `svc serve`
// runs plain JavaScript: no TypeScript loader in the server process. Dependencies from
// node_modules stay external.
import { build } from "esbuild"
import { readFileSync } from "node:fs"

const external = new Set()
for (const pkg of ["server", "backend", "api", "schema"]) {
  const manifest = JSON.parse(readFileSync(new URL(`../${pkg}/package.json`, import.meta.url), "utf8"))
  for (const name of Object.keys(manifest.dependencies ?? {})) if (!name.startsWith("@svc/")) external.add(name)
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
