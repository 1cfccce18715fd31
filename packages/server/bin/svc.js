#!/usr/bin/env -S node --heap-growing-percent=100
// The svc command: runs the bundled build, dist/cli.mjs (`npm run build -w @svc/server`, which
// `npm ci`, `npm start` and `npm test` run), so the server process loads no TypeScript tooling.
//
// The V8 flag on the first line is the server's own, on its own command line (`@svc/backend` never
// sets one): the old generation grows to twice its live size before a full collection, where V8
// lets it reach four times on a host with 16 GB or more, so the peak under the subjects bench is
// ~50 MB lower (~150 against ~205 MB on a busy machine; 155-193 MB on a quiet one), for no CPU
// per request measurable against the same build without it
// (docs/adr/0099-memory-of-svc-serve.md). It applies where this file runs as a program (`svc`,
// `npx svc`, node_modules/.bin/svc, the container image). `node bin/svc.js` runs it with V8's
// defaults or the flags given before it (`node --max-semi-space-size=8 "$(command -v svc)" serve`):
// that is the opt-out, and the way to run it where `env` has no `-S` (BusyBox's, as in Alpine).
import { existsSync } from "node:fs"

const bundle = new URL("../dist/cli.mjs", import.meta.url)
if (!existsSync(bundle)) {
  console.error("svc: the command is not built yet; run `npm run build` (or `npm ci`) first")
  process.exit(1)
}
await import(bundle.href)
