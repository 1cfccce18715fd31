import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"

const bin = fileURLToPath(new URL("../bin/svc.js", import.meta.url))
const children: Array<ChildProcess> = []

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL")
})

const run = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, ...env } })
    children.push(child)
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

/** Starts `svc serve` and resolves with its URL once the startup line is printed. */
const serve = (cwd: string, args: ReadonlyArray<string> = [], env: Record<string, string> = {}) =>
  new Promise<{ url: string; child: ChildProcess; output: () => string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--host", "127.0.0.1", ...args], {
      cwd,
      env: { ...process.env, ...env }
    })
    children.push(child)
    let output = ""
    const onData = (d: Buffer) => {
      output += d
      const match = /svc listening on (http:\/\/\S+)/.exec(output)
      if (match) resolve({ url: match[1]!, child, output: () => output })
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", (d) => (output += d))
    child.on("exit", (code) => reject(new Error(`svc serve exited with ${code}: ${output}`)))
  })

const tempDir = () => mkdtempSync(join(tmpdir(), "svc-cli-"))

describe("svc serve", () => {
  it("with no config serves the demo manifest on ./svc.db, /docs and /spec.json", async () => {
    const cwd = tempDir()
    const { url, output } = await serve(cwd)
    expect(output()).toMatch(/demo configuration; sqlite \.\/svc\.db; 5 policy rules/)
    const status = await fetch(`${url}/status`)
    expect(status.status).toBe(200)
    expect((await status.json()).status).toBe("ok")
    expect((await fetch(`${url}/docs`)).headers.get("content-type")).toContain("text/html")
    const demo = await (await fetch(`${url}/demo`)).text()
    expect(demo).toContain('<script src="/svc.js" async></script>')
    const spec = await (await fetch(`${url}/spec.json`)).json()
    expect(Object.keys(spec.paths)).toContain("/subjects/{id}")
  })

  it("discovers svc.config.ts in the working directory", async () => {
    const cwd = tempDir()
    writeFileSync(
      join(cwd, "svc.config.ts"),
      `const version: string = "7.7.7-ts"\nexport default { database: { dialect: "sqlite" as const, url: ":memory:" }, version }\n`
    )
    const { url, output } = await serve(cwd)
    expect(output()).toContain("svc.config.ts")
    expect((await (await fetch(`${url}/status`)).json()).version).toBe("7.7.7-ts")
  })

  it("lets SVC_DATABASE_URL replace database.url", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "svc.config.json"), JSON.stringify({ database: { dialect: "sqlite", url: "/nonexistent/dir/x.db" } }))
    const { output } = await serve(cwd, [], { SVC_DATABASE_URL: join(cwd, "other.db") })
    expect(output()).toContain(`sqlite ${join(cwd, "other.db")}`)
  })

  it("exits non-zero with every problem of a bad config listed", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "bad.json"), JSON.stringify({ database: { dialect: "sqlite", url: ":memory:" }, tenantId: "", hosting: "x", bogus: 1 }))
    const result = await run(["serve", "--config", "bad.json"], cwd)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("Invalid svc configuration (3 problems)")
    expect(result.stderr).toContain("tenantId: must not be empty")
    expect(result.stderr).toContain("hosting:")
    expect(result.stderr).toContain("bogus: unknown option")
    expect(result.stderr).not.toMatch(/\n\s+at /) // no stack trace
  })

  it("exits non-zero with a plain message when the port is taken", async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const port = (blocker.address() as AddressInfo).port
    try {
      const result = await run(["serve", "--port", String(port), "--host", "127.0.0.1"], tempDir())
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`)
    } finally {
      blocker.close()
    }
  })

  it("drains and exits 0 on SIGTERM", async () => {
    const { child } = await serve(tempDir())
    child.removeAllListeners("exit") // drop serve()'s rejection handler; this exit is expected
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    child.kill("SIGTERM")
    expect(await exited).toBe(0)
  })
})

describe("svc migrate, spec and token", () => {
  it("migrate applies pending migrations once", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "svc.config.json"), JSON.stringify({ database: { dialect: "sqlite", url: "./m.db" } }))
    const first = await run(["migrate"], cwd)
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/applied 1-subjects, 2-consents, 3-legal-documents, 4-vendor-choice/)
    const second = await run(["migrate"], cwd)
    expect(second.stdout).toContain("database is up to date")
  })

  it("spec prints the OpenAPI document", async () => {
    const result = await run(["spec"], tempDir())
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).openapi).toMatch(/^3\./)
  })

  it("token identity mints an HS256 token for the configured key", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "svc.config.json"), JSON.stringify({
      database: { dialect: "sqlite", url: ":memory:" },
      identityToken: { signingKey: "k".repeat(32) }
    }))
    const result = await run(["token", "identity", "--sub", "user-42", "--idp", "auth0"], cwd)
    expect(result.code).toBe(0)
    const [header, payload] = result.stdout.trim().split(".").slice(0, 2).map((part) => JSON.parse(Buffer.from(part!, "base64url").toString()))
    expect(header.alg).toBe("HS256")
    expect(payload).toMatchObject({ sub: "user-42", idp: "auth0", iss: "svc", aud: "svc-identity" })
    expect(payload.exp - payload.iat).toBe(3600)
    const missing = await run(["token", "identity"], cwd)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("--sub ID is required")
  })
})
