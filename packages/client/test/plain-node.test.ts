import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"
import { beforeAll, describe, expect, it } from "vitest"

// The published entry points are JavaScript: plain Node (no TypeScript loader, no source
// condition) must import them. `npm ci` builds them (`prepare` runs `npm run build`); the test
// brings the build up to date first (`tsc -b` is incremental), so it never imports a stale `dist/`.
describe("@svc/client from plain Node", () => {
  beforeAll(() => {
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
    execFileSync(process.execPath, [tsc, "-b", new URL("..", import.meta.url).pathname], { stdio: "pipe" })
  }, 180_000)

  it("imports both entry points without a TypeScript loader", () => {
    const script = `
      const client = await import("@svc/client")
      const testing = await import("@svc/client/testing")
      const svc = client.createSvcClient({ baseUrl: "http://127.0.0.1:1" })
      const mock = testing.createMockSvcClient({ status: async () => testing.ok({ version: "x" }) })
      console.log(JSON.stringify({ create: typeof svc.status, mock: (await mock.status()).ok }))
    `
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: new URL("..", import.meta.url).pathname,
      env: { ...process.env, NODE_OPTIONS: "" },
      encoding: "utf8"
    })
    expect(JSON.parse(output.trim())).toEqual({ create: "function", mock: true })
  })
})
