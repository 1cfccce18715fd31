import { readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { randomBytes } from "node:crypto"
import { afterEach, describe, expect, it } from "vitest"
import { dialects, freshDatabase } from "../../backend/test/support/dialects.js"
import { killChildren, run, serve, tempDir } from "./support/svc-process.js"

afterEach(killChildren)

/** The rule `/init` resolves for a visitor with these (CDN) headers. */
const ruleFor = async (url: string, headers: Record<string, string>) => {
  const answer = await (await fetch(`${url}/init`, { headers })).json() as {
    policyResolution: { status: string; policyId?: string; matchedBy?: string }
  }
  return answer.policyResolution
}

const envValues = (text: string) =>
  Object.fromEntries(
    text.split("\n").flatMap((line) => {
      const match = /^([A-Z_]+)=(.*)$/.exec(line)
      return match === null ? [] : [[match[1]!, match[2]!]]
    })
  )

/** A database of its own on the server dialects, as a URL `svc init`'s config takes, and how to drop it. */
const ownDatabase = async (dialect: "postgres" | "mysql") => {
  if (dialect === "mysql") {
    const db = await freshDatabase("mysql")
    return { url: db.database.url, drop: db.drop }
  }
  const base = process.env.SVC_TEST_PG_URL!
  const name = `svc_init_${randomBytes(4).toString("hex")}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }
  }
}

describe("svc init", () => {
  it(
    "--yes writes a config, .env.example and .env; svc serve then resolves a German visitor to the EU rule",
    async () => {
      const cwd = tempDir()
      const init = await run(["init", "--yes"], cwd)
      expect(init.code, init.stderr).toBe(0)
      expect(init.stdout).toContain("wrote svc.config.ts (sqlite) and .env.example")
      const config = readFileSync(join(cwd, "svc.config.ts"), "utf8")
      expect(config).toContain(`apiKeys: [env("SVC_API_KEY")]`)
      expect(config).toContain("match: { fallback: true }")
      // .env holds fresh keys, owner-only; the example names the same variables without a secret.
      const env = envValues(readFileSync(join(cwd, ".env"), "utf8"))
      expect(statSync(join(cwd, ".env")).mode & 0o777).toBe(0o600)
      expect(env.SVC_API_KEY).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(env.SVC_SNAPSHOT_KEY).toMatch(/^[A-Za-z0-9_-]{43}$/)
      const example = envValues(readFileSync(join(cwd, ".env.example"), "utf8"))
      expect(example).toEqual({ SVC_API_KEY: "", SVC_SNAPSHOT_KEY: "" })

      const { output, url } = await serve(cwd)
      expect(output()).toContain("svc.config.ts; sqlite ./svc.db; 5 policy rules")
      expect(await ruleFor(url, { "cf-ipcountry": "DE" })).toMatchObject({ status: "matched", policyId: "eu" })
      expect(await ruleFor(url, { "cf-ipcountry": "GB" })).toMatchObject({ policyId: "uk" })
      expect(await ruleFor(url, { "cf-ipcountry": "US", "cf-region-code": "CA" })).toMatchObject({
        policyId: "california"
      })
      expect(await ruleFor(url, { "cf-ipcountry": "JP" })).toMatchObject({ policyId: "rest-of-world" })
      expect(await ruleFor(url, {})).toMatchObject({ policyId: "unknown-location" })
      // The key from .env opens the administrative routes; a config is present, so no demo page.
      const check = await fetch(`${url}/consents/check?externalId=user-42&type=cookie_banner`, {
        headers: { authorization: `Bearer ${env.SVC_API_KEY}` }
      })
      expect(check.status).toBe(200)
      expect((await fetch(`${url}/demo`)).status).toBe(404)
      expect((await fetch(`${url}/health/ready`)).status).toBe(200)
    },
    60_000
  )

  it("never overwrites without --force; --force rewrites the config and example, never .env", async () => {
    const cwd = tempDir()
    expect((await run(["init", "--yes"], cwd)).code).toBe(0)
    const env = readFileSync(join(cwd, ".env"), "utf8")
    const again = await run(["init", "--yes", "--dialect", "postgres"], cwd)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`${join(cwd, "svc.config.ts")} and ${join(cwd, ".env.example")} already exist`)
    expect(readFileSync(join(cwd, "svc.config.ts"), "utf8")).toContain(`dialect: "sqlite"`)
    const forced = await run(["init", "--yes", "--force", "--dialect", "postgres"], cwd)
    expect(forced.code, forced.stderr).toBe(0)
    expect(forced.stdout).toContain("kept the existing .env")
    expect(readFileSync(join(cwd, "svc.config.ts"), "utf8")).toContain(`dialect: "postgres"`)
    expect(readFileSync(join(cwd, ".env"), "utf8")).toBe(env)
    const bad = await run(["init", "--yes", "--dialect", "oracle"], tempDir())
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain(`--dialect: one of sqlite, postgres, mysql (got "oracle")`)
  }, 60_000)

  it.each(dialects.filter((d) => d !== "sqlite") as Array<"postgres" | "mysql">)(
    "--dialect %s --yes: svc serve on that server resolves a German visitor to the EU rule",
    async (dialect) => {
      const cwd = tempDir()
      const init = await run(["init", "--dialect", dialect, "--yes"], cwd)
      expect(init.code, init.stderr).toBe(0)
      expect(envValues(readFileSync(join(cwd, ".env"), "utf8")).SVC_DATABASE_URL).toMatch(
        dialect === "postgres" ? /^postgres:\/\/svc:change-me@/ : /^mysql:\/\/svc:change-me@/
      )
      const db = await ownDatabase(dialect)
      try {
        // A variable set in the environment wins over .env, as the config says.
        const { child, output, url } = await serve(cwd, [], { SVC_DATABASE_URL: db.url })
        expect(output()).toContain(`svc.config.ts; options from SVC_DATABASE_URL; ${dialect} `)
        expect(await ruleFor(url, { "cf-ipcountry": "DE" })).toMatchObject({ status: "matched", policyId: "eu" })
        child.removeAllListeners("exit")
        const exited = new Promise((resolve) => child.once("exit", resolve))
        child.kill("SIGTERM")
        await exited
      } finally {
        await db.drop()
      }
    },
    60_000
  )
})

describe("svc keys", () => {
  it("prints a fresh value of each kind's form, which a config takes", async () => {
    const cwd = tempDir()
    const values: Record<string, string> = {}
    for (const kind of ["api", "snapshot", "identity", "webhook"]) {
      const printed = await run(["keys", kind], cwd)
      expect(printed.code).toBe(0)
      values[kind] = printed.stdout.trim()
    }
    // Fresh each time.
    expect((await run(["keys", "api"], cwd)).stdout.trim()).not.toBe(values.api)
    expect(values.api).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(values.snapshot).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(values.identity).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(values.webhook).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(values.webhook!.slice(6), "base64")).toHaveLength(32)
    writeFileSync(
      join(cwd, "svc.config.json"),
      JSON.stringify({
        database: { dialect: "sqlite", url: ":memory:" },
        apiKeys: [values.api],
        policySnapshot: { signingKey: values.snapshot },
        identityToken: { signingKey: values.identity },
        webhooks: [{ id: "crm", url: "https://crm.example/hooks", secret: values.webhook }]
      })
    )
    const spec = await run(["spec"], cwd)
    expect(spec.code, spec.stderr).toBe(0)
  }, 60_000)

  it("a short key is a configuration error saying how to generate one; an unknown kind a usage error", async () => {
    const cwd = tempDir()
    writeFileSync(
      join(cwd, "svc.config.json"),
      JSON.stringify({ database: { dialect: "sqlite", url: ":memory:" }, apiKeys: ["abc"] })
    )
    const result = await run(["serve", "--port", "0", "--host", "127.0.0.1"], cwd)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("apiKeys[0]: must be at least 32 bytes; generate one with `svc keys api`")
    expect(result.stderr).not.toContain(`"abc"`)
    const unknown = await run(["keys", "ssh"], cwd)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain(`svc keys: unknown kind "ssh"; one of api, snapshot, identity, webhook, log`)
  }, 60_000)
})
