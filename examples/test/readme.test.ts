// The README's code is these files: every TypeScript block in README.md and packages/*/README.md is
// marked with the example file it shows and must equal it, and the files run here against real
// databases (`npx tsc -p tsconfig.test.json` type-checks them).
import { resolveOptions, type SvcOptions } from "@svc/backend"
import { startServer, withDatabaseUrl } from "@svc/server"
import { createSvcClient, type SvcResult, unwrap } from "@svc/client"
import { Effect } from "effect"
import Database from "better-sqlite3"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, relative, resolve } from "node:path"
import { afterAll, afterEach, describe, expect, it, vi } from "vitest"
import { newSubjectId, postCookieSave } from "../../packages/backend/test/support/consent-saves.js"
import { dialects, freshDatabase } from "../../packages/backend/test/support/dialects.js"
import { optionalServers } from "../../packages/backend/test/support/optional-servers.js"
import { itWith } from "../../packages/backend/test/support/server-suites.js"
import { eventually } from "../../packages/backend/test/support/webhook-receiver.js"
import { status } from "../../packages/client/examples/effect-program.js"
import type { SvcResultShape } from "../../packages/client/examples/result-shape.js"
import { codeBlocks, containsFragment } from "./readme-blocks.js"

const root = resolve(import.meta.dirname, "../..")
const readmes = [join(root, "README.md"),
  ...readdirSync(join(root, "packages")).map((dir) => join(root, "packages", dir, "README.md")).filter(existsSync)]

describe("README code blocks are the example files", () => {
  it.each(readmes.map((path) => [relative(root, path), path]))("%s", (_name, path) => {
    for (const block of codeBlocks(path)) {
      const where = `${relative(root, path)}:${block.line}`
      if (block.lang === "ts" || block.lang === "typescript")
        expect(block.file, `${where}: a TypeScript block names its example file`).toBeDefined()
      if (block.file === undefined) continue
      expect(existsSync(block.file), `${where}: ${block.file} exists`).toBe(true)
      const file = readFileSync(block.file, "utf8")
      if (block.fragment)
        expect(containsFragment(file, block.code), `${where} appears in ${relative(root, block.file)}`).toBe(true)
      else expect(block.code, `${where} equals ${relative(root, block.file)}`).toBe(file)
    }
  })
})

const children: Array<ChildProcess> = []
const folders: Array<string> = []
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.pid === undefined) continue
    const exited = new Promise((done) => child.once("exit", done))
    process.kill(-child.pid, "SIGKILL")
    await exited
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

const freePort = () =>
  new Promise<number>((done) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => done(port))
    })
  })

/** Runs an example file the way a user would (`tsx file.ts`) in a fresh directory; resolves once `ready` answers. */
const runExample = async (file: string, readyPath: string) => {
  const cwd = mkdtempSync(join(tmpdir(), "svc-example-"))
  folders.push(cwd)
  const port = await freePort()
  const child = spawn(join(root, "node_modules/.bin/tsx"), ["--conditions=@svc/source", join(root, "examples", file)], {
    cwd,
    detached: true,
    env: { ...process.env, PORT: String(port) }
  })
  children.push(child)
  let output = ""
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${file} exited with ${child.exitCode}: ${output}`)
    const ok = await fetch(`${url}${readyPath}`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.ok, () => false)
    if (ok) break
    if (Date.now() > deadline) throw new Error(`${file} never answered ${readyPath}: ${output}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return { url, cwd }
}

const preferences = { necessary: true, measurement: true, marketing: false, functionality: false, experience: false }

/** A browser's save (no policy snapshot: these configs sign none). */
const save = (base: string, subjectId: string) => postCookieSave(base, { subjectId, preferences })

const storedIp = (cwd: string, subjectId: string) => {
  const db = new Database(join(cwd, "svc.db"), { readonly: true })
  try {
    return (db.prepare("SELECT ip_address FROM svc_consents WHERE subject_id = ?").get(subjectId) as {
      ip_address: string | null
    } | undefined)?.ip_address
  } finally {
    db.close()
  }
}

describe("README: using the backend from your own server", () => {
  it("node:http: saves and reads a consent, and stores the visitor's masked IP", async () => {
    const { url, cwd } = await runExample("node-http.ts", "/status")
    const subjectId = newSubjectId()
    const saved = await save(url, subjectId)
    expect(saved.status).toBe(200)
    const read = await (await fetch(`${url}/subjects/${subjectId}`)).json() as { consents: Array<unknown> }
    expect(read.consents).toHaveLength(1)
    expect(storedIp(cwd, subjectId)).toBe("127.0.0.0")
    // A header from the visitor cannot claim another address.
    const spoofed = newSubjectId()
    await postCookieSave(url, { subjectId: spoofed, preferences }, {
      "x-socket-address": "203.0.113.9",
      "x-forwarded-for": "203.0.113.9"
    })
    expect(storedIp(cwd, spoofed)).toBe("127.0.0.0")
  }, 180_000)

  it("Effect app: migrates on start, serves svc under /consent next to its own route, saves", async () => {
    const { url, cwd } = await runExample("effect-app.ts", "/hello")
    expect(await (await fetch(`${url}/hello`)).text()).toBe("hi")
    const subjectId = newSubjectId()
    const saved = await save(`${url}/consent`, subjectId)
    expect(saved.status).toBe(200)
    const read = await (await fetch(`${url}/consent/subjects/${subjectId}`)).json() as { consents: Array<unknown> }
    expect(read.consents).toHaveLength(1)
    expect(storedIp(cwd, subjectId)).toBe("127.0.0.0")
  }, 180_000)
})

describe("README: configuration", () => {
  const env = {
    SVC_API_KEY: "readme-config-api-key-0123456789abcd",
    SVC_SNAPSHOT_KEY: "readme-config-snapshot-signing-key-0123456789",
    SVC_IDENTITY_KEY: "readme-config-identity-signing-key-0123456789"
  }
  const load = async (): Promise<SvcOptions> => {
    Object.assign(process.env, env)
    return (await import("../svc.config.js")).default
  }

  it("svc.config.ts is a valid configuration", async () => {
    const config = resolveOptions(await load())
    expect(config.manifest.policyRules.map((rule: { id: string }) => rule.id)).toEqual(["eu", "california",
      "everyone-else"])
  })

  itWith(
    optionalServers.postgres,
    "svc.config.ts serves on PostgreSQL: a signed decision, saved and read back",
    async (pgUrl) => {
      const fresh = await freshDatabase("postgres")
      const options = withDatabaseUrl(await load(), pgUrl)
      const server = await startServer(
        { ...options, database: { ...fresh.database }, observability: { requests: "none" } },
        { port: 0, host: "127.0.0.1" }
      )
      try {
        const init = await (await fetch(`${server.url}/init?country=DE`)).json() as { policySnapshotToken: string }
        const subjectId = newSubjectId()
        const saved = await postCookieSave(server.url, {
          domain: "www.example.com",
          subjectId,
          preferences,
          policySnapshotToken: init.policySnapshotToken
        })
        expect(saved.status).toBe(200)
        const read = await (await fetch(`${server.url}/subjects/${subjectId}`)).json() as { consents: Array<unknown> }
        expect(read.consents).toEqual([
          expect.objectContaining({ policyId: "eu", runtimePolicySource: "snapshot_token" })
        ])
      } finally {
        await server.close()
        await fresh.drop()
      }
    }
  )
})

describe("README: rate limits", () => {
  it("the rate-limit fragment is a configuration that serves and saves (Redis at 127.0.0.1:6379)", async () => {
    process.env.SVC_REDIS_URL = "redis://127.0.0.1:6379"
    const options = (await import("../rate-limit.config.js")).default
    const fresh = await freshDatabase("sqlite")
    const server = await startServer({ ...options, database: fresh.database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1"
    })
    try {
      expect((await save(server.url, newSubjectId())).status).toBe(200)
    } finally {
      await server.close()
      await fresh.drop()
    }
  })
})

describe("README: consent events", () => {
  it("the events fragment is a valid configuration that serves and saves (NATS at 127.0.0.1:4222)", async () => {
    process.env.DATABASE_URL = "postgres://unused@127.0.0.1/unused"
    process.env.CRM_WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`
    const options = (await import("../events.config.js")).default
    expect(resolveOptions(options).database).toMatchObject({ dialect: "postgres" })
    const fresh = await freshDatabase("sqlite")
    const server = await startServer({ ...options, database: fresh.database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1"
    })
    try {
      expect((await save(server.url, newSubjectId())).status).toBe(200)
    } finally {
      await server.close()
      await fresh.drop()
    }
  })
})

describe("README: event receivers and sinks", () => {
  const withdraw = async (base: string, subjectId: string) => {
    for (const [marketing, givenAt] of [[true, Date.now() - 60_000], [false, Date.now()]] as const) {
      const saved = await postCookieSave(base, { subjectId, givenAt, preferences: { ...preferences, marketing } })
      expect(saved.status).toBe(200)
    }
  }

  it("the Express receiver verifies svc's webhook and acts on a withdrawal", async () => {
    const secret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`
    process.env.CRM_WEBHOOK_SECRET = secret
    const { app, stopped } = await import("../webhook-receiver.js")
    const receiver = app.listen(0, "127.0.0.1")
    await new Promise((r) => receiver.once("listening", r))
    const fresh = await freshDatabase("sqlite")
    const server = await startServer({
      database: fresh.database,
      webhooks: [{
        id: "crm",
        url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/svc-events`,
        secret,
        events: ["consent.withdrawn"]
      }],
      observability: { requests: "none" }
    }, { port: 0, host: "127.0.0.1" })
    try {
      const subjectId = newSubjectId()
      await withdraw(server.url, subjectId)
      await eventually(() => stopped.includes(subjectId), 30_000, "the withdrawal at the receiver")
      const forged = await fetch(`http://127.0.0.1:${(receiver.address() as { port: number }).port}/svc-events`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": "msg_1",
          "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
          "webhook-signature": "v1,AAAA"
        },
        body: "{}"
      })
      expect(forged.status).toBe(400)
    } finally {
      await server.close()
      await fresh.drop()
      receiver.close()
    }
  })

  it("a custom sink receives the events through the outbox", async () => {
    const { default: options, sent } = await import("../event-sink.config.js")
    const fresh = await freshDatabase("sqlite")
    const server = await startServer({ ...options, database: fresh.database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1"
    })
    try {
      await withdraw(server.url, newSubjectId())
      await eventually(() => sent.length >= 2, 30_000, "both events at the sink")
      expect(sent[0]).toMatchObject({
        topic: "consent",
        messages: [{ key: expect.any(String), value: expect.stringContaining("consent.") }]
      })
    } finally {
      await server.close()
      await fresh.drop()
    }
  })
})

describe("README: Google Consent Mode", () => {
  it("the consentMode fragment is a configuration whose /init carries the resolved mapping", async () => {
    const options = (await import("../consent-mode.config.js")).default
    const fresh = await freshDatabase("sqlite")
    const server = await startServer({ ...options, database: fresh.database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1"
    })
    try {
      const init = await (await fetch(`${server.url}/init?country=DE`)).json() as {
        consentMode: { mapping: Record<string, string>; waitForUpdate: number }
      }
      expect(init.consentMode.mapping).toMatchObject({
        personalization_storage: "functionality",
        ad_user_data: "measurement"
      })
      expect(init.consentMode.waitForUpdate).toBe(500)
    } finally {
      await server.close()
      await fresh.drop()
    }
  })
})

describe.each(dialects)("README: the client library (%s)", (dialect) => {
  let closeAll: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const close of closeAll) await close()
    closeAll = []
  })

  it("sends the newsletter only to a user whose privacy-policy consent is on record", async () => {
    const fresh = await freshDatabase(dialect)
    const apiKey = "readme-client-api-key-0123456789abcd"
    const server = await startServer(
      { database: fresh.database, apiKeys: [apiKey], observability: { requests: "none" } },
      { port: 0, host: "127.0.0.1" }
    )
    closeAll.push(() => server.close(), () => fresh.drop())
    const admin = createSvcClient({ baseUrl: server.url, apiKey })
    unwrap(
      await admin.legalDocuments.publish("privacy_policy", {
        version: "2026-01",
        hash: "a".repeat(64),
        effectiveDate: "2026-01-01"
      })
    )
    const subjectId = newSubjectId()
    unwrap(
      await admin.subjects.create({
        type: "privacy_policy",
        domain: "example.com",
        subjectId,
        givenAt: new Date(),
        externalSubjectId: "user-with-consent"
      })
    )

    process.env.SVC_URL = server.url
    process.env.SVC_API_KEY = apiKey
    vi.resetModules() // the example makes its client when imported: once per server here
    const { sendNewsletterIfAllowed } = await import("../newsletter.js")
    const sent: Array<string> = []
    const send = async (user: { id: string }) => {
      sent.push(user.id)
    }
    await sendNewsletterIfAllowed({ id: "user-with-consent" }, send)
    await sendNewsletterIfAllowed({ id: "user-without" }, send)
    expect(sent).toEqual(["user-with-consent"])
  })
})

/** The shape packages/client/README.md shows is the real SvcResult (readonly aside): checked by tsc. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
export const resultShapeIsReal: Same<
  SvcResultShape<{ n: number }, "NOT_FOUND">,
  SvcResult<{ n: number }, "NOT_FOUND">
> = true

describe.each(dialects)("packages/client/README.md against the real backend (%s)", (dialect) => {
  let server: Awaited<ReturnType<typeof startServer>>
  let fresh: Awaited<ReturnType<typeof freshDatabase>>
  afterAll(async () => {
    await server?.close()
    await fresh?.drop()
  })

  it("the opening example reads a subject (and reports an unknown one)", async () => {
    fresh = await freshDatabase(dialect)
    server = await startServer({ database: fresh.database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1"
    })
    const subjectId = newSubjectId()
    expect((await save(server.url, subjectId)).status).toBe(200)
    const { SVC_API_KEY: _key, ...withoutApiKey } = process.env
    const run = (id: string) =>
      new Promise<{ stdout: string; stderr: string }>((done, fail) => {
        const child = spawn(join(root, "node_modules/.bin/tsx"), ["--conditions=@svc/source",
          join(root, "packages/client/examples/get-subject.ts"), id], {
          env: { ...withoutApiKey, SVC_URL: server.url }
        })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (d) => (stdout += d))
        child.stderr.on("data", (d) => (stderr += d))
        child.on("exit", (code) => (code === 0 ? done({ stdout, stderr }) : fail(new Error(`exit ${code}: ${stderr}`))))
      })
    const found = await run(subjectId)
    expect(found.stdout).toMatch(/^true \{/)
    expect(found.stdout).toContain("measurement")
    const missing = await run(newSubjectId())
    expect(missing.stderr).toMatch(/^NOT_FOUND /)
  }, 120_000)

  it("the Effect program reads /status", async () => {
    const result = await Effect.runPromise(status(server.url))
    expect(result.status).toBe("ok")
  })
})
