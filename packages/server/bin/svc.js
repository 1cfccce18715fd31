#!/usr/bin/env node
// The svc command: runs the bundled build, dist/cli.mjs (`npm run build -w @svc/server`, which
// `npm ci`, `npm start` and `npm test` run), so the server process loads no TypeScript tooling.
import { existsSync } from "node:fs"
import { setFlagsFromString } from "node:v8"

const bundle = new URL("../dist/cli.mjs", import.meta.url)
if (!existsSync(bundle)) {
  console.error("svc: the command is not built yet; run `npm run build` (or `npm ci`) first")
  process.exit(1)
}
// Loading the bundle and building the app allocate much that lives on, and V8 answers that by
// growing the young generation to its largest (two 16 MB semi-spaces), memory an idle server then
// holds for nothing. So it does not grow during startup; `svc serve` restores V8's default factor
// once the port is bound, and under load it grows as it always did (docs/decisions.md, "Memory").
setFlagsFromString("--semi-space-growth-factor=1")
await import(bundle.href)
