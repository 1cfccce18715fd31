import Database from "better-sqlite3"
import { spawn, spawnSync } from "node:child_process"
import { readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { connect } from "node:net"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { postCookieSave } from "../../backend/test/support/consent-saves.js"
import { bin, killChildren, run, serve, tempDir } from "./support/svc-process.js"

afterEach(killChildren)

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

  it('loads a .ts config as ESM in a project without "type": "module", with its own imports, and leaves no compiler running', async () => {
    const cwd = tempDir()
    // The folder has no package.json (CommonJS by default); the packages come from the repo's node_modules.
    symlinkSync(fileURLToPath(new URL("../../../node_modules", import.meta.url)), join(cwd, "node_modules"), "dir")
    writeFileSync(join(cwd, "version.txt"), "8.8.8-ts")
    writeFileSync(
      join(cwd, "rules.ts"),
      `import type { SvcConfigOptions } from "@svc/backend"\n` +
        `export const rules: NonNullable<SvcConfigOptions["manifest"]>["policyRules"] = [\n` +
        `  { id: "everyone", match: { default: true }, model: "none", categories: [] }\n]\n`
    )
    writeFileSync(
      join(cwd, "svc.config.ts"),
      `import { defineConfig } from "@svc/backend"\nimport { readFileSync } from "node:fs"\nimport { rules } from "./rules.js"\n` +
        `export default defineConfig({\n  database: { dialect: "sqlite", url: ":memory:" },\n` +
        `  version: readFileSync(new URL("./version.txt", import.meta.url), "utf8"),\n  manifest: { policyRules: rules }\n})\n`
    )
    const { child, url } = await serve(cwd)
    expect((await (await fetch(`${url}/status`)).json()).version).toBe("8.8.8-ts")
    expect((await (await fetch(`${url}/init`)).json()).policyResolution.policyId).toBe("everyone")
    // esbuild's service process was stopped once the config was compiled.
    expect(spawnSync("ps", ["-o", "comm=", "--ppid", String(child.pid)], { encoding: "utf8" }).stdout.trim()).toBe("")
  })

  it("lets SVC_DATABASE_URL replace database.url", async () => {
    const cwd = tempDir()
    writeFileSync(
      join(cwd, "svc.config.json"),
      JSON.stringify({ database: { dialect: "sqlite", url: "/nonexistent/dir/x.db" } })
    )
    const { output } = await serve(cwd, [], { SVC_DATABASE_URL: join(cwd, "other.db") })
    expect(output()).toContain(`sqlite ${join(cwd, "other.db")}`)
  })

  it("exits non-zero with every problem of a bad config listed", async () => {
    const cwd = tempDir()
    writeFileSync(
      join(cwd, "bad.json"),
      JSON.stringify({ database: { dialect: "sqlite", url: ":memory:" }, tenantId: "", hosting: "x", bogus: 1 })
    )
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

  it("says the address it bound: every interface when that is what it listens on", async () => {
    const { output, url } = await serve(tempDir(), ["--host", "0.0.0.0"])
    const port = new URL(url).port
    expect(url).toBe(`http://0.0.0.0:${port}`)
    expect(output()).toContain(`svc listening on http://0.0.0.0:${port} (every IPv4 interface; `)
    expect(output()).toContain(`docs at http://127.0.0.1:${port}/docs`)
    expect((await fetch(`http://127.0.0.1:${port}/status`)).status).toBe(200)
    const local = await serve(tempDir())
    expect(local.output()).toMatch(/svc listening on http:\/\/127\.0\.0\.1:\d+ \(demo configuration;/)
  })

  it("serves /demo only without a config file or with --demo; the demo listens on 127.0.0.1 unless --host", async () => {
    const withConfig = tempDir()
    writeFileSync(
      join(withConfig, "svc.config.json"),
      JSON.stringify({ database: { dialect: "sqlite", url: ":memory:" } })
    )
    const configured = await serve(withConfig)
    expect((await fetch(`${configured.url}/demo`)).status).toBe(404)
    expect(configured.output()).not.toContain("/demo")
    const asked = await serve(withConfig, ["--demo"])
    expect((await fetch(`${asked.url}/demo`)).status).toBe(200)
    expect(asked.output()).toContain(`demo at ${asked.url}/demo`)
    // Without --host: the demo on loopback, a configuration on every interface.
    const demo = await run(["serve", "--port", "0"], tempDir(), {}, /svc listening on \S+/)
    expect(demo.stdout).toMatch(/svc listening on http:\/\/127\.0\.0\.1:\d+ \(demo configuration;/)
    const real = await run(["serve", "--port", "0"], withConfig, {}, /svc listening on \S+/)
    expect(real.stdout).toMatch(/svc listening on http:\/\/0\.0\.0\.0:\d+ \(every IPv4 interface; /)
  })

  it("--log-format and --log-requests (or SVC_LOG_FORMAT, SVC_LOG_REQUESTS) set the request log", async () => {
    const json = await serve(tempDir(), ["--log-format", "json", "--log-requests", "all"])
    await fetch(`${json.url}/status`)
    await expect.poll(json.output).toMatch(/\{"message":"request",.*"route":"\/status"/)
    const fromEnv = await serve(tempDir(), [], { SVC_LOG_FORMAT: "json", SVC_LOG_REQUESTS: "all" })
    await fetch(`${fromEnv.url}/manifest`)
    await expect.poll(fromEnv.output).toMatch(/\{"message":"request",.*"route":"\/manifest"/)
    // The flag wins over the variable; at the default level a 200 is not logged.
    const flagWins = await serve(tempDir(), ["--log-requests", "warnings"], { SVC_LOG_REQUESTS: "all" })
    await fetch(`${flagWins.url}/status`)
    expect((await fetch(`${flagWins.url}/nope`)).status).toBe(404)
    await expect.poll(flagWins.output).toMatch(/level=WARN .*message=request .*route=\(unknown\)/)
    expect(flagWins.output()).not.toContain("route=/status")
    const bad = await run(["serve", "--log-format", "xml"], tempDir())
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("svc: --log-format xml: one of logfmt, json, pretty")
    const badEnv = await run(["serve"], tempDir(), { SVC_LOG_REQUESTS: "loud" })
    expect(badEnv.stderr).toContain("svc: SVC_LOG_REQUESTS=loud: one of all, warnings, errors, none")
  })

  it("exits at once on a second SIGTERM while the first still drains an in-flight request", async () => {
    const { child, output, url } = await serve(tempDir())
    child.removeAllListeners("exit")
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    // A request whose body never finishes arriving: the drain would wait its full 10 s for it.
    const { port } = new URL(url)
    const socket = connect(Number(port), "127.0.0.1")
    await new Promise<void>((resolve) => socket.once("connect", resolve))
    socket.write(
      "POST /subjects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
    )
    const firstAt = Date.now()
    child.kill("SIGTERM")
    await expect.poll(output, { timeout: 10_000 }).toContain("SIGTERM received, draining")
    child.kill("SIGTERM")
    expect(await exited).toBe(1)
    expect(Date.now() - firstAt).toBeLessThan(8_000)
    expect(output()).toContain("svc: second SIGTERM, exiting without waiting for in-flight requests")
    socket.destroy()
  })

  it("drains and exits 0 on SIGTERM", async () => {
    const { child } = await serve(tempDir())
    child.removeAllListeners("exit") // drop serve()'s rejection handler; this exit is expected
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve))
    child.kill("SIGTERM")
    expect(await exited).toBe(0)
  })
  // The V8 flag on bin/svc.js's first line (docs/adr/0099-memory-of-svc-serve.md): the server's
  // own command line when run as a program, as `svc`, npx and the container run it; `node bin/svc.js`
  // is the opt-out. Read from /proc, hence Linux only.
  it.runIf(process.platform === "linux")(
    "run as a program, serves with its memory flag on its own command line; run by node, without",
    async () => {
      const commandLine = async (asProgram: boolean) => {
        const cwd = tempDir()
        const args = ["serve", "--port", "0", "--host", "127.0.0.1"]
        const child = asProgram ? spawn(bin, args, { cwd }) : spawn(process.execPath, [bin, ...args], { cwd })
        try {
          let output = ""
          await new Promise<void>((resolve, reject) => {
            child.stdout.on("data", (d: Buffer) => {
              output += d
              if (output.includes("svc listening on")) resolve()
            })
            child.on("exit", (code) => reject(new Error(`svc serve exited with ${code}: ${output}`)))
          })
          // NUL-terminated arguments
          return readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0").slice(0, -1)
        } finally {
          child.kill("SIGKILL")
        }
      }
      const program = await commandLine(true)
      expect(program.slice(1)).toEqual(["--heap-growing-percent=100", bin, "serve", "--port", "0", "--host",
        "127.0.0.1"])
      const byNode = await commandLine(false)
      expect(byNode).toEqual([process.execPath, bin, "serve", "--port", "0", "--host", "127.0.0.1"])
    }
  )
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
    writeFileSync(
      join(cwd, "svc.config.json"),
      JSON.stringify({
        database: { dialect: "sqlite", url: ":memory:" },
        identityToken: { signingKey: "k".repeat(32) }
      })
    )
    const result = await run(["token", "identity", "--sub", "user-42", "--idp", "auth0"], cwd)
    expect(result.code).toBe(0)
    const [header, payload] = result.stdout.trim().split(".").slice(0, 2).map((part) =>
      JSON.parse(Buffer.from(part!, "base64url").toString())
    )
    expect(header.alg).toBe("HS256")
    expect(payload).toMatchObject({ sub: "user-42", idp: "auth0", iss: "svc", aud: "svc-identity" })
    expect(payload.exp - payload.iat).toBe(3600)
    const missing = await run(["token", "identity"], cwd)
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain("--sub ID is required")
  })
})

describe("svc purge", () => {
  it("applies the retention rules once to the configured database and logs one line", async () => {
    const cwd = tempDir()
    const key = "purge-cli-key-0123456789abcdef-01234"
    writeFileSync(
      join(cwd, "svc.config.json"),
      JSON.stringify({
        database: { dialect: "sqlite", url: "./purge.db" },
        apiKeys: [key],
        retention: { ipAddressDays: 30, recordDays: 400 }
      })
    )
    const { url, child } = await serve(cwd)
    const day = 86_400_000
    const saveAt = async (daysAgo: number) => {
      const subjectId = `sub_purge_cli_${daysAgo}_${Date.now().toString(36)}`
      const saved = await postCookieSave(url, {
        subjectId,
        givenAt: Date.now() - daysAgo * day,
        preferences: { necessary: true, measurement: true }
      })
      expect(saved.status).toBe(200)
      return subjectId
    }
    const old = await saveAt(500)
    const middle = await saveAt(45)
    const fresh = await saveAt(0)
    child.removeAllListeners("exit")
    const stopped = new Promise((resolve) => child.on("exit", resolve))
    child.kill("SIGTERM")
    await stopped

    const db = new Database(join(cwd, "purge.db"), { readonly: true })
    const ipOf = (subjectId: string) =>
      (db.prepare("SELECT ip_address FROM svc_consents WHERE subject_id = ?").get(subjectId) as {
        ip_address: string | null
      })
        .ip_address
    try {
      expect(ipOf(middle)).not.toBeNull()
      const result = await run(["purge"], cwd)
      expect(result.code).toBe(0)
      expect(result.stderr).toBe("")
      const lines = result.stdout.trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain(
        "retention: 2 IP addresses cleared, 0 user agents cleared, 1 records retired, 1 choices expired, 1 idle subjects deleted"
      )
      // the 500-day record is anonymous proof now, its subject gone; the others keep their subjects
      expect(db.prepare("SELECT COUNT(*) AS n FROM svc_consents WHERE subject_id = 'retired'").get()).toEqual({ n: 1 })
      expect(db.prepare("SELECT id FROM svc_subjects ORDER BY id").all()).toEqual(
        [{ id: fresh }, { id: middle }].sort((a, b) => a.id < b.id ? -1 : 1)
      )
      expect(db.prepare("SELECT COUNT(*) AS n FROM svc_consents WHERE subject_id = ?").get(old)).toEqual({ n: 0 })
      expect(ipOf(middle)).toBeNull()
      expect(ipOf(fresh)).not.toBeNull()
      // a second run finds nothing left to do
      expect((await run(["purge"], cwd)).stdout).toContain(
        "retention: 0 IP addresses cleared, 0 user agents cleared, 0 records retired, 0 choices expired, 0 idle subjects deleted"
      )
    } finally {
      db.close()
    }
  })
})
