#!/usr/bin/env node
// The svc command: runs the bundled build, dist/cli.mjs (`npm run build -w @svc/server`, which
// `npm ci`, `npm start` and `npm test` run), so the server process loads no TypeScript tooling.
import { existsSync } from "node:fs"

const bundle = new URL("../dist/cli.mjs", import.meta.url)
if (!existsSync(bundle)) {
  console.error("svc: the command is not built yet; run `npm run build` (or `npm ci`) first")
  process.exit(1)
}
await import(bundle.href)
