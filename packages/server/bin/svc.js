#!/usr/bin/env node
// The svc command: runs the bundled build, dist/cli.mjs (`npm run build -w @svc/server`, which
// `npm ci`, `npm start` and `npm test` run), so the server process loads no TypeScript tooling.
//
// The Node and V8 flags the server wants belong on this file's first line, its process's own
// command line (`#!/usr/bin/env -S node --flag`; `@svc/backend` never sets one at run time). It
// sets none: each one measured lowers idle or peak memory at 8 to 60% more CPU per save or read
// (docs/adr/0038-nothing-process-global.md, docs/adr/0099-memory-of-svc-serve.md). An operator's
// own go in `NODE_OPTIONS`, or before this file: `node --flag "$(command -v svc)" serve`.
import { existsSync } from "node:fs"

const bundle = new URL("../dist/cli.mjs", import.meta.url)
if (!existsSync(bundle)) {
  console.error("svc: the command is not built yet; run `npm run build` (or `npm ci`) first")
  process.exit(1)
}
await import(bundle.href)
