#!/usr/bin/env node
// The svc command. Runs the bundled build (dist/cli.mjs, made by `npm run build -w @svc/server`,
// which `npm ci`, `npm start` and `npm test` run) when present, else the TypeScript source via tsx.
import { existsSync } from "node:fs"

const bundle = new URL("../dist/cli.mjs", import.meta.url)
if (existsSync(bundle) && process.env.SVC_FROM_SOURCE !== "1") {
  await import(bundle.href)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("../src/cli.ts")
}
