import type { SqlDialect } from "@svc/backend"
import mysql from "mysql2/promise"
import pg from "pg"
import { randomBytes } from "node:crypto"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { newSubjectId, postCookieSave } from "../../backend/test/support/consent-saves.js"
import { databaseServers, dialects, freshDatabase, serverDialects } from "../../backend/test/support/dialects.js"
import { optionalServers } from "../../backend/test/support/optional-servers.js"
import { skippedWithout } from "../../backend/test/support/server-suites.js"
import { killChildren, run, serve, tempDir } from "./support/svc-process.js"

afterEach(killChildren)

// `svc keys api` / `svc keys snapshot` form: 43 characters of base64url.
const KEY_A = "a".repeat(40) + "AAA"
const KEY_B = "b".repeat(40) + "BBB"
const SNAPSHOT_KEY = "s".repeat(43)

/** Saves a consent linked to `externalId` with `key`, then reads the subjects linked to it. */
const saveAndList = async (url: string, key: string, externalId: string) => {
  const subjectId = newSubjectId()
  const saved = await postCookieSave(url, { subjectId, externalSubjectId: externalId }, {
    authorization: `Bearer ${key}`
  })
  const listed = await fetch(`${url}/subjects?externalId=${externalId}`, {
    headers: { authorization: `Bearer ${key}` }
  })
  return { subjectId, saved, listed: { status: listed.status, body: await listed.json() as { subjects?: unknown } } }
}

/**
 * A database of its own for `dialect`, as a URL: SQLite a file in `cwd`; PostgreSQL a new database
 * (without a config file there is no `schema` option); MySQL a new database.
 */
const databaseUrl = async (dialect: SqlDialect): Promise<{ url: string; drop: () => Promise<void> }> => {
  if (dialect === "sqlite") return { url: "consents.db", drop: async () => {} }
  if (dialect === "mysql") {
    const fresh = await freshDatabase(dialect)
    return { url: fresh.database.url, drop: fresh.drop }
  }
  const admin = new pg.Client({ connectionString: optionalServers.postgres.url })
  await admin.connect()
  const name = `svc_env_${randomBytes(6).toString("hex")}`
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(optionalServers.postgres.url!)
  url.pathname = `/${name}`
  return {
    url: url.href,
    drop: async () => {
      killChildren()
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }
  }
}

describe("svc serve configured by the environment, without a config file", () => {
  describe.each(dialects)("[%s]", (dialect) => {
    it("SVC_DATABASE_URL picks the dialect, SVC_API_KEYS authenticates; no demo page, every interface", async () => {
      const cwd = tempDir()
      const database = await databaseUrl(dialect)
      try {
        const { output, url: base } = await serve(cwd, [], {
          SVC_DATABASE_URL: database.url,
          SVC_API_KEYS: `${KEY_A}, ${KEY_B}`,
          SVC_SNAPSHOT_KEY: SNAPSHOT_KEY
        })
        expect(output()).toContain(
          `built-in manifest; options from SVC_DATABASE_URL, SVC_API_KEYS, SVC_SNAPSHOT_KEY; ${dialect} `
        )
        for (const secret of [KEY_A, KEY_B, SNAPSHOT_KEY]) expect(output()).not.toContain(secret)
        const externalId = `user-${newSubjectId()}`
        const { listed, saved, subjectId } = await saveAndList(base, KEY_B, externalId)
        expect(saved.status).toBe(200)
        expect(listed.status).toBe(200)
        expect(JSON.stringify(listed.body)).toContain(subjectId)
        const wrong = await fetch(`${base}/subjects?externalId=${externalId}`, {
          headers: { authorization: "Bearer x" }
        })
        expect(wrong.status).toBe(401)
        expect((await fetch(`${base}/demo`)).status).toBe(404)
        // The snapshot key came from the environment: no key file was written beside a SQLite database.
        if (dialect === "sqlite") expect(existsSync(join(cwd, "consents.db.key"))).toBe(false)
      } finally {
        await database.drop()
      }
    })
  })

  it("reads each variable from NAME_FILE (a Docker secret): one key a line", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "api-keys"), `${KEY_A}\n${KEY_B}\n`)
    const { output, url } = await serve(cwd, [], { SVC_API_KEYS_FILE: join(cwd, "api-keys") })
    expect(output()).toContain("options from SVC_API_KEYS; sqlite ./svc.db")
    expect((await saveAndList(url, KEY_A, "file-a")).listed.status).toBe(200)
    expect((await saveAndList(url, KEY_B, "file-b")).listed.status).toBe(200)
    // A SQLite database without SVC_SNAPSHOT_KEY keeps its generated key beside it, as the demo does.
    expect(existsSync(join(cwd, "svc.db.key"))).toBe(true)
  })
})

/** The subject ids of today's period export (NDJSON), which reads from `database.readUrl` when set. */
const exportedToday = async (base: string, key: string) => {
  const today = new Date().toISOString().slice(0, 10)
  const response = await fetch(`${base}/consents/export?from=${today}&to=${today}`, {
    headers: { authorization: `Bearer ${key}` }
  })
  expect(response.status).toBe(200)
  return (await response.text()).split("\n").filter((line) => line !== "").map((line) =>
    String((JSON.parse(line) as { principal: { subjectId: string } }).principal.subjectId)
  )
}

describe("SVC_DATABASE_READ_URL: the read side of database.readUrl, without a config file", () => {
  if (serverDialects.length === 0) {
    skippedWithout("routes period exports to the database it names", databaseServers)
  }
  describe.each(serverDialects)("[%s]", (dialect) => {
    it("period exports read the database it names (from NAME_FILE here), saves and subject reads the primary; its password never printed", async () => {
      const cwd = tempDir()
      const primary = await databaseUrl(dialect)
      const standby = await databaseUrl(dialect)
      // PostgreSQL here trusts local connections, so a password in the URL is never asked for.
      const readUrl = new URL(standby.url)
      if (dialect === "postgres") readUrl.password = "s3cret-read-password"
      try {
        // The read database gets svc's tables and one act the primary never sees: svc serves it first.
        const env = { SVC_API_KEYS: KEY_A, SVC_SNAPSHOT_KEY: SNAPSHOT_KEY }
        // With the API key a save needs no policy snapshot token from /init.
        const admin = { authorization: `Bearer ${KEY_A}` }
        const first = await serve(cwd, [], { ...env, SVC_DATABASE_URL: standby.url })
        const onStandby = newSubjectId()
        expect((await postCookieSave(first.url, { subjectId: onStandby }, admin)).status).toBe(200)
        killChildren()

        writeFileSync(join(cwd, "read-url"), `${readUrl.href}\n`)
        const { output, url } = await serve(cwd, [], {
          ...env,
          SVC_DATABASE_URL: primary.url,
          SVC_DATABASE_READ_URL_FILE: join(cwd, "read-url")
        })
        expect(output()).toContain(
          `built-in manifest; options from SVC_DATABASE_URL, SVC_DATABASE_READ_URL, SVC_API_KEYS, SVC_SNAPSHOT_KEY; ${dialect} `
        )
        const onPrimary = newSubjectId()
        expect((await postCookieSave(url, { subjectId: onPrimary }, admin)).status).toBe(200)
        expect(await exportedToday(url, KEY_A)).toEqual([onStandby])
        expect((await fetch(`${url}/subjects/${onPrimary}`)).status).toBe(200)
        expect((await fetch(`${url}/subjects/${onStandby}`)).status).toBe(404)
        expect(output()).not.toContain("s3cret-read-password")
      } finally {
        await primary.drop()
        await standby.drop()
      }
    })
  })
})

/** Counts the connections open to the database `url` names (its own included are not: it uses another database). */
const connectionCounter = async (dialect: SqlDialect, url: string) => {
  const name = new URL(url).pathname.slice(1)
  if (dialect === "postgres") {
    const admin = new pg.Client({ connectionString: optionalServers.postgres.url })
    await admin.connect()
    return {
      count: async () =>
        Number((await admin.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1", [name])).rows[0].n),
      close: () => admin.end()
    }
  }
  const admin = await mysql.createConnection(optionalServers.mysql.url!)
  return {
    count: async () => {
      const [rows] = await admin.query("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ?", [name])
      return Number((rows as Array<{ n: number }>)[0]!.n)
    },
    close: () => admin.end()
  }
}

/** The most connections `count` saw while `work` ran (sampled every 10 ms). */
const peakWhile = async (count: () => Promise<number>, work: () => Promise<void>) => {
  let peak = 0
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await count())
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()
  try {
    await work()
  } finally {
    sampling = false
    await sampler
  }
  return peak
}

describe("SVC_DATABASE_MAX_CONNECTIONS: database.maxConnections, without a config file", () => {
  if (serverDialects.length === 0) {
    skippedWithout("sizes svc's pool", databaseServers)
  }
  describe.each(serverDialects)("[%s]", (dialect) => {
    it("caps the connections svc holds to the database under many concurrent saves", async () => {
      const database = await databaseUrl(dialect)
      const admin = { authorization: `Bearer ${KEY_A}` }
      const saves = (url: string) => async () => {
        const answers = await Promise.all(
          Array.from({ length: 60 }, () => postCookieSave(url, { subjectId: newSubjectId() }, admin))
        )
        expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200))
      }
      const counter = await connectionCounter(dialect, database.url)
      try {
        // Connections svc does not hold (the test's own to a fresh MySQL database).
        const others = await counter.count()
        const env = { SVC_DATABASE_URL: database.url, SVC_API_KEYS: KEY_A, SVC_SNAPSHOT_KEY: SNAPSHOT_KEY }
        const capped = await serve(tempDir(), [], { ...env, SVC_DATABASE_MAX_CONNECTIONS: "2" })
        expect(capped.output()).toContain(
          "options from SVC_DATABASE_URL, SVC_DATABASE_MAX_CONNECTIONS, SVC_API_KEYS, SVC_SNAPSHOT_KEY"
        )
        const few = await peakWhile(counter.count, saves(capped.url))
        killChildren()
        // The same load with a larger pool opens more: the cap above is the variable's doing.
        const wide = await serve(tempDir(), [], { ...env, SVC_DATABASE_MAX_CONNECTIONS: "8" })
        const many = await peakWhile(counter.count, saves(wide.url))
        expect(few - others).toBeLessThanOrEqual(2)
        expect(many - others).toBeGreaterThan(2)
      } finally {
        await counter.close()
        await database.drop()
      }
    })
  })
})

describe("svc serve with a config file and the environment", () => {
  it("SVC_CONFIG names the file; a variable replaces the option it sets, the others stay", async () => {
    const cwd = tempDir()
    writeFileSync(
      join(cwd, "deploy.json"),
      JSON.stringify({ database: { dialect: "sqlite", url: ":memory:" }, apiKeys: [KEY_A], version: "9.9.9-env" })
    )
    const { output, url } = await serve(cwd, [], { SVC_CONFIG: "deploy.json", SVC_API_KEYS: KEY_B })
    expect(output()).toContain(`${join(cwd, "deploy.json")}; options from SVC_API_KEYS; sqlite :memory:`)
    expect((await (await fetch(`${url}/status`)).json()).version).toBe("9.9.9-env")
    expect((await saveAndList(url, KEY_B, "config-b")).listed.status).toBe(200)
    expect((await saveAndList(url, KEY_A, "config-a")).listed.status).toBe(401)
  })

  it("--config wins over SVC_CONFIG", async () => {
    const cwd = tempDir()
    writeFileSync(
      join(cwd, "a.json"),
      JSON.stringify({ database: { dialect: "sqlite", url: ":memory:" }, version: "1.0.0-a" })
    )
    const { url } = await serve(cwd, ["--config", "a.json"], { SVC_CONFIG: "missing.json" })
    expect((await (await fetch(`${url}/status`)).json()).version).toBe("1.0.0-a")
  })
})

describe("bad values in the environment", () => {
  const fails = async (env: Record<string, string>, cwd = tempDir()) => {
    const result = await run(["serve", "--port", "0"], cwd, env)
    expect(result.code).toBe(1)
    expect(result.stderr).not.toMatch(/\n\s+at /) // no stack trace
    return result.stderr
  }

  it("a short key is named by its variable, its value never printed", async () => {
    const stderr = await fails({ SVC_API_KEYS: "hunter2-short", SVC_SNAPSHOT_KEY: "tiny-secret" })
    expect(stderr).toContain(
      "apiKeys[0]: must be at least 32 bytes; generate one with `svc keys api` (set by SVC_API_KEYS)"
    )
    expect(stderr).toContain("policySnapshot.signingKey: must be at least 32 bytes")
    expect(stderr).toContain("(set by SVC_SNAPSHOT_KEY)")
    expect(stderr).not.toContain("hunter2")
    expect(stderr).not.toContain("tiny-secret")
  })

  it("a log key that is not a note signer key, an identity key too short", async () => {
    const stderr = await fails({ SVC_LOG_KEY: "PRIVATE+KEY+nope", SVC_IDENTITY_KEY: "short-identity" })
    expect(stderr).toContain("(set by SVC_LOG_KEY)")
    expect(stderr).toContain("identityToken.signingKey: must be at least 32 bytes")
    expect(stderr).not.toContain("PRIVATE+KEY+nope")
    expect(stderr).not.toContain("short-identity")
  })

  it("a database URL of no known scheme, its password never printed", async () => {
    const stderr = await fails({ SVC_DATABASE_URL: "redis://app:pa55word@cache:6379/0" })
    expect(stderr).toContain("SVC_DATABASE_URL: not a postgres:// or mysql:// URL, nor a SQLite file path")
    expect(stderr).not.toContain("pa55word")
  })

  it("a bad PostgreSQL URL is named by its variable", async () => {
    const stderr = await fails({ SVC_DATABASE_URL: "postgres://app:pa55word@db:notaport/svc" })
    expect(stderr).toContain("(set by SVC_DATABASE_URL)")
    expect(stderr).not.toContain("pa55word")
  })

  it("a read URL beside SQLite is refused, named by its variable, its password never printed", async () => {
    const stderr = await fails({ SVC_DATABASE_READ_URL: "postgres://app:pa55word@standby/svc" })
    expect(stderr).toContain(
      "database.readUrl: SQLite is one file with no standby to read from; remove readUrl (or use postgres or " +
        "mysql) (set by SVC_DATABASE_READ_URL)"
    )
    expect(stderr).not.toContain("pa55word")
  })

  it("a read URL of another dialect than the primary's is named by its variable, its password never printed", async () => {
    const stderr = await fails({
      SVC_DATABASE_URL: "postgres://app@db.invalid/svc",
      SVC_DATABASE_READ_URL: "mysql://app:pa55word@replica.invalid/svc"
    })
    expect(stderr).toContain("database.readUrl: not a postgres URL")
    expect(stderr).toContain("(set by SVC_DATABASE_READ_URL)")
    expect(stderr).not.toContain("(set by SVC_DATABASE_URL)")
    expect(stderr).not.toContain("pa55word")
  })

  it("a pool size that is not a positive integer, or beside SQLite, is refused, named by its variable", async () => {
    for (const value of ["0", "2.5", "1e3"]) {
      const stderr = await fails({
        SVC_DATABASE_URL: "postgres://app@db.invalid/svc",
        SVC_DATABASE_MAX_CONNECTIONS: value
      })
      expect(stderr, value).toContain(
        "SVC_DATABASE_MAX_CONNECTIONS: must be a positive integer (the most connections each pool holds)"
      )
    }
    expect(await fails({ SVC_DATABASE_MAX_CONNECTIONS: "4" })).toContain(
      "database.maxConnections: SQLite has one connection, shared by group commit; remove maxConnections (or use " +
        "postgres or mysql) (set by SVC_DATABASE_MAX_CONNECTIONS)"
    )
    const cwd = tempDir()
    writeFileSync(join(cwd, "svc.config.json"), JSON.stringify({ database: { dialect: "sqlite", url: ":memory:" } }))
    expect(await fails({ SVC_DATABASE_MAX_CONNECTIONS: "4" }, cwd)).toContain("(set by SVC_DATABASE_MAX_CONNECTIONS)")
  })

  it("NAME and NAME_FILE both set, a missing or empty file, a list with nothing in it", async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, "empty"), "")
    expect(await fails({ SVC_API_KEYS: KEY_A, SVC_API_KEYS_FILE: join(cwd, "empty") }, cwd)).toContain(
      "SVC_API_KEYS and SVC_API_KEYS_FILE are both set; set one"
    )
    expect(await fails({ SVC_SNAPSHOT_KEY_FILE: join(cwd, "absent") }, cwd)).toContain(
      `SVC_SNAPSHOT_KEY_FILE: cannot read ${join(cwd, "absent")} (ENOENT)`
    )
    expect(await fails({ SVC_IDENTITY_KEY_FILE: join(cwd, "empty") }, cwd)).toContain(
      `SVC_IDENTITY_KEY_FILE: ${join(cwd, "empty")} is empty`
    )
    expect(await fails({ SVC_TRUSTED_ORIGINS: " , " }, cwd)).toContain("SVC_TRUSTED_ORIGINS: no entry in it")
  })
})
