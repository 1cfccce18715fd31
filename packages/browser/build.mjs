// Builds the three browser bundles into dist/ and fails when one is over its gzip budget.
import { build } from "esbuild"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import ts from "typescript"

const root = dirname(fileURLToPath(import.meta.url))
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))

const bundles = [
  { entry: "src/runtime/entry-headless.ts", out: "svc.headless.js", budget: 12 * 1024 },
  { entry: "src/ui/entry-full.ts", out: "svc.js", budget: 30 * 1024 },
  // The IAB bundle is the full bundle plus the CMP API and vendor list; it has no budget of its own.
  { entry: "src/iab/entry-iab.ts", out: "svc.iab.js", budget: undefined }
]

let over = false
for (const bundle of bundles) {
  const outfile = join(root, "dist", bundle.out)
  await build({
    entryPoints: [join(root, bundle.entry)],
    outfile,
    bundle: true,
    format: "iife",
    minify: true,
    target: "es2019",
    platform: "browser",
    legalComments: "none",
    define: { __SVC_VERSION__: JSON.stringify(version) },
    logLevel: "warning"
  })
  const raw = readFileSync(outfile)
  const gzip = gzipSync(raw, { level: 9 }).length
  const budget = bundle.budget === undefined ? "" : ` (budget ${(bundle.budget / 1024).toFixed(0)} KB)`
  console.log(
    `${bundle.out.padEnd(16)} ${(statSync(outfile).size / 1024).toFixed(1).padStart(6)} KB raw  ${
      (gzip / 1024).toFixed(2).padStart(6)
    } KB gzip${budget}`
  )
  if (bundle.budget !== undefined && gzip > bundle.budget) {
    console.error(`${bundle.out} is ${gzip} bytes gzipped, over its budget of ${bundle.budget}`)
    over = true
  }
}
// The server-side entry (`bundleFiles`), as JavaScript and declarations for installs outside the repo.
await build({
  entryPoints: [join(root, "src/index.ts")],
  outfile: join(root, "dist/index.js"),
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning"
})
const declarations = ts.transpileDeclaration(readFileSync(join(root, "src/index.ts"), "utf8"), { fileName: "index.ts" })
writeFileSync(join(root, "dist/index.d.ts"), declarations.outputText)

if (over) process.exit(1)
