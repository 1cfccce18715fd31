// The packages as a user gets them: `npm pack` tarballs installed into a fresh project outside the
// repository, with the rest from the registry. Slow (a real npm install): one file, run by
// `npm test` and so by CI.
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { packAll, PUBLISHED } from "../../scripts/pack-all.js"

const run = promisify(execFile)
const root = resolve(import.meta.dirname, "../..")
const VERSION =
  (JSON.parse(readFileSync(join(root, "packages/client/package.json"), "utf8")) as { version: string }).version
const INSTALL_TIMEOUT = 10 * 60_000

let project: string
const started: Array<ChildProcess> = []

/** Files the user's project holds: plain ESM scripts, a TypeScript file and two tsconfigs. */
const userFiles: Record<string, string> = {
  "package.json": JSON.stringify({ name: "svc-user", private: true, type: "module" }),
  // Saves a consent and reads it back through @svc/client; prints what it saw.
  "roundtrip.mjs": `import { createSvcClient, unwrap } from "@svc/client"
const svc = createSvcClient({ baseUrl: process.argv[2], retry: false })
const init = unwrap(await svc.init({ country: "DE" }))
const subjectId = "sub_" + crypto.randomUUID().replaceAll("-", "")
const saved = unwrap(await svc.subjects.create({
  type: "cookie_banner", domain: "example.com", subjectId, givenAt: new Date(),
  preferences: { necessary: true, measurement: true, marketing: false, functionality: false, experience: false },
  ...(init.policySnapshotToken === undefined ? {} : { policySnapshotToken: init.policySnapshotToken })
}))
const read = unwrap(await svc.subjects.get(subjectId))
console.log(JSON.stringify({ policyId: init.policyResolution.policyId, subjectId, saved, consents: read.consents }))
`,
  // svcInstance().handler mounted in a plain node:http server.
  "mount.mjs": `import { createServer } from "node:http"
import { Readable } from "node:stream"
import { svcInstance } from "@svc/backend"

const svc = svcInstance({ database: { dialect: "sqlite", url: "./mounted.db" }, observability: { requests: "none" } }, { migrate: true })
const server = createServer(async (req, res) => {
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : Readable.toWeb(req)
  const response = await svc.handler(new Request("http://" + req.headers.host + req.url, { method: req.method, headers: req.headers, body, duplex: "half" }))
  res.writeHead(response.status, Object.fromEntries(response.headers))
  res.end(Buffer.from(await response.arrayBuffer()))
})
server.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + server.address().port))
`,
  // Type-checked under node16 and bundler resolution. The @ts-expect-error lines fail the check if
  // the packages' types did not resolve (everything would be \`any\`).
  "typed.ts": `import { createSvcClient, isSvcError, type SvcClient } from "@svc/client"
import { createMockSvcClient, ok } from "@svc/client/testing"
import { defineConfig, svcInstance, SvcServices } from "@svc/backend"
import { SvcTest } from "@svc/backend/testing"
import { startServer } from "@svc/server"

const svc: SvcClient = createSvcClient({ baseUrl: "http://127.0.0.1:3000", apiKey: "key" })
const check = await svc.consents.check({ externalId: "user-1", types: ["privacy_policy"] })
export const allowed: boolean = check.ok ? check.data.results.privacy_policy.hasConsent : isSvcError(check.error, "TIMEOUT") && false
export const mock = createMockSvcClient({
  status: () => ok({ status: "ok", version: "1", timestamp: new Date(), client: { ip: null, userAgent: null, acceptLanguage: null, country: null, region: null } })
})
export const handler: (request: Request) => Promise<Response> = svcInstance(defineConfig({ database: { dialect: "sqlite", url: ":memory:" } })).handler
export const start: typeof startServer = startServer
export const services = SvcServices.layer(defineConfig({ database: { dialect: "sqlite", url: ":memory:" } }))
export const testServices: typeof services = SvcTest.layer()
// @ts-expect-error: the test layer's database is always in memory
SvcTest.layer({ database: { dialect: "sqlite", url: "./svc.db" } })
// @ts-expect-error: no such method
svc.subjects.remove("sub_x")
// @ts-expect-error: the port is a number
void startServer({ database: { dialect: "sqlite", url: ":memory:" } }, { port: "3000" })
`,
  "tsconfig.node16.json": JSON.stringify({
    compilerOptions: {
      module: "node16",
      moduleResolution: "node16",
      target: "es2022",
      strict: true,
      noEmit: true,
      types: ["node"],
      skipLibCheck: true
    },
    files: ["typed.ts"]
  }),
  "tsconfig.bundler.json": JSON.stringify({
    compilerOptions: {
      module: "esnext",
      moduleResolution: "bundler",
      target: "es2022",
      strict: true,
      noEmit: true,
      types: ["node"],
      skipLibCheck: true
    },
    files: ["typed.ts"]
  })
}

/** Starts a long-running process in the project and resolves with the URL it prints. */
const startProcess = (command: string, args: Array<string>): Promise<{ url: string; output: () => string }> =>
  new Promise((resolvePromise, reject) => {
    // Its own process group, so npx and the server under it stop together.
    const child = spawn(command, args, { cwd: project, detached: true, env: { ...process.env, NODE_OPTIONS: "" } })
    started.push(child)
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const url = /listening on (http:\/\/[^\s]+)/.exec(output)?.[1]
      if (url !== undefined) resolvePromise({ url, output: () => output })
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.on("exit", (code) => reject(new Error(`${command} ${args.join(" ")} exited with ${code}:\n${output}`)))
  })

/**
 * This machine cannot download better-sqlite3's prebuilt binary, and compiling it takes most of
 * ten minutes. Its installer (prebuild-install) also looks in a local prebuilds folder first: give
 * it the binary the repository's own install built, packed the way a prebuild is. What is under
 * test is how svc's packages install, not SQLite's build.
 */
const localSqlitePrebuild = async (): Promise<string> => {
  const packageDir = join(root, "node_modules/better-sqlite3")
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string }
  const folder = join(project, "prebuilds")
  mkdirSync(folder, { recursive: true })
  const file = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`
  await run("tar", ["czf", join(folder, file), "build/Release/better_sqlite3.node"], { cwd: packageDir })
  return folder
}

const node = async (...args: Array<string>) =>
  (await run("node", args, { cwd: project, env: { ...process.env, NODE_OPTIONS: "" } })).stdout

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "svc-installed-"))
  for (const [name, text] of Object.entries(userFiles)) writeFileSync(join(project, name), text)
  // Fresh dist/ for the tarballs (`npm test` has just built the bundles).
  await run("npx", ["tsc", "-b", "tsconfig.build.json"], { cwd: root })
  const tarballs = packAll(join(project, "tarballs"), { build: false })
  expect(tarballs).toHaveLength(PUBLISHED.length)
  mkdirSync(join(project, "node_modules"), { recursive: true })
  await run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", ...tarballs, "typescript@~5.9.3",
      "@types/node@^20.19.0"],
    {
      cwd: project,
      timeout: INSTALL_TIMEOUT,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, npm_config_better_sqlite3_local_prebuilds: await localSqlitePrebuild() }
    }
  )
}, INSTALL_TIMEOUT + 120_000)

afterAll(() => {
  for (const child of started) {
    try {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGTERM")
    } catch {
      // already gone
    }
  }
  if (project !== undefined) rmSync(project, { recursive: true, force: true })
})

describe("installed from the tarballs, outside the repository", () => {
  it("installs every package at the one version, resolved from the tarballs", () => {
    for (const dir of PUBLISHED) {
      const installed = JSON.parse(readFileSync(join(project, "node_modules/@svc", dir, "package.json"), "utf8")) as {
        version: string
      }
      expect(installed.version, `@svc/${dir}`).toBe(VERSION)
    }
    const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string; link?: boolean }>
    }
    expect(lock.packages["node_modules/@svc/client"]?.resolved).toMatch(/^file:tarballs\/svc-client-.+\.tgz$/)
    expect(lock.packages["node_modules/@svc/api"]?.resolved).toMatch(/^file:tarballs\/svc-api-.+\.tgz$/)
  })

  it("npx svc serve answers /status and serves the browser bundles; a plain-Node @svc/client script saves and reads a consent", async () => {
    const server = await startProcess("npx", ["svc", "serve", "--port", "0", "--host", "127.0.0.1"])
    const status = await fetch(`${server.url}/status`)
    expect(status.status).toBe(200)
    expect(await status.json()).toMatchObject({ status: "ok", version: VERSION })
    const bundle = await fetch(`${server.url}/svc.js`)
    expect(bundle.status).toBe(200)
    expect((await bundle.text()).length).toBeGreaterThan(10_000)

    const seen = JSON.parse(await node("roundtrip.mjs", server.url)) as {
      policyId: string
      saved: { consentId: string }
      consents: Array<Record<string, unknown>>
    }
    expect(seen.saved.consentId).toMatch(/^cns_/)
    expect(seen.policyId).toBe("eu-opt-in")
    // The demo signs policy snapshots: the record names the rule and fingerprint it was made under.
    expect(seen.consents).toEqual([
      expect.objectContaining({
        consentId: seen.saved.consentId,
        type: "cookie_banner",
        policyId: "eu-opt-in",
        policyFingerprint: expect.any(String),
        runtimePolicySource: "snapshot_token"
      })
    ])
    const key = readFileSync(join(project, "svc.db.key"), "utf8").trim()
    expect(statSync(join(project, "svc.db.key")).mode & 0o777).toBe(0o600)
    expect(server.output()).not.toContain(key)
  })

  it("@svc/client imports from plain Node ESM", async () => {
    const out = await node(
      "--input-type=module",
      "-e",
      `import * as client from "@svc/client"; import * as testing from "@svc/client/testing"; console.log(typeof client.createSvcClient, typeof testing.createMockSvcClient, client.CLIENT_VERSION)`
    )
    expect(out.trim()).toBe(`function function ${VERSION}`)
  })

  it.each(["node16", "bundler"])(
    "type-checks against the installed packages with moduleResolution %s",
    async (resolution) => {
      const result = await run("npx", ["tsc", "-p", `tsconfig.${resolution}.json`], { cwd: project }).catch((
        error: { stdout: string }
      ) => error)
      expect(result.stdout).toBe("")
    }
  )

  it("svcInstance().handler mounts in a plain node:http server; the client saves and reads through it", async () => {
    const server = await startProcess("node", ["mount.mjs"])
    const seen = JSON.parse(await node("roundtrip.mjs", server.url)) as {
      saved: { consentId: string }
      consents: Array<Record<string, unknown>>
    }
    expect(seen.saved.consentId).toMatch(/^cns_/)
    expect(seen.consents).toEqual([
      expect.objectContaining({
        consentId: seen.saved.consentId,
        preferences: expect.objectContaining({ measurement: true, marketing: false })
      })
    ])
  })
})
