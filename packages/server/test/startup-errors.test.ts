import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { optionalServers } from "../../backend/test/support/optional-servers.js"
import { itWith } from "../../backend/test/support/server-suites.js"
import { freePort, killChildren, run, tempDir } from "./support/svc-process.js"

afterEach(killChildren)

const PASSWORD = "hunter2-Secret"

/** Runs `svc serve` on a config file written for the test; it must exit 1 with one plain line. */
const failingServe = async (
  config: unknown,
  env: Record<string, string | undefined> = {},
  name = "svc.config.json"
) => {
  const cwd = tempDir()
  writeFileSync(join(cwd, name), typeof config === "string" ? config : JSON.stringify(config))
  const result = await run(["serve", "--config", name, "--port", "0", "--host", "127.0.0.1"], cwd, env)
  expect(result.code, result.stdout + result.stderr).toBe(1)
  expect(result.stderr).not.toMatch(/\n\s+at /) // no stack trace
  expect(result.stderr).not.toContain(PASSWORD)
  return { ...result, cwd }
}

/** The test server's URL with another database name (and a password the server does not need). */
const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  parsed.password = PASSWORD
  return parsed.toString()
}

describe("svc serve: a database that cannot be reached is named by host, port and database", () => {
  it("PostgreSQL: connection refused, with the driver's reason and no password", async () => {
    const port = await freePort()
    const { stderr } = await failingServe({
      database: { dialect: "postgres", url: `postgres://app:${PASSWORD}@127.0.0.1:${port}/consents` }
    })
    expect(stderr).toContain(
      `svc: cannot connect to PostgreSQL at 127.0.0.1:${port}, database "consents", user "app": connect ECONNREFUSED`
    )
  })

  it("MySQL: connection refused, with the driver's reason and no password", async () => {
    const port = await freePort()
    const { stderr } = await failingServe({
      database: { dialect: "mysql", url: `mysql://app:${PASSWORD}@127.0.0.1:${port}/consents` }
    })
    expect(stderr).toContain(
      `svc: cannot connect to MySQL at 127.0.0.1:${port}, database "consents", user "app": connect ECONNREFUSED`
    )
  })

  itWith(optionalServers.postgres, "PostgreSQL: a database that does not exist", async (server) => {
    const url = withDatabase(server, "svc_no_such_db")
    const { stderr } = await failingServe({ database: { dialect: "postgres", url } })
    expect(stderr).toMatch(
      /cannot connect to PostgreSQL at [^,]+:\d+, database "svc_no_such_db"[^:]*: database "svc_no_such_db" does not exist \(3D000\)/
    )
  })

  itWith(optionalServers.mysql, "MySQL: a database that does not exist", async (server) => {
    const url = withDatabase(server, "svc_no_such_db")
    const { stderr } = await failingServe({ database: { dialect: "mysql", url } })
    expect(stderr).toMatch(
      /cannot connect to MySQL at [^,]+:\d+, database "svc_no_such_db"[^:]*: .*(Unknown database 'svc_no_such_db'|Access denied)/
    )
  })

  it("SQLite: the file that cannot be opened, by its full path", async () => {
    const { stderr } = await failingServe({ database: { dialect: "sqlite", url: "./missing-dir/svc.db" } })
    expect(stderr).toMatch(
      /^svc: cannot open the SQLite database \/.*\/missing-dir\/svc\.db: .*directory does not exist/m
    )
  })
})

describe("svc serve: configuration mistakes are named where they are", () => {
  it("a JSON syntax error gives the file, line and column", async () => {
    const { cwd, stderr } = await failingServe(
      `{\n  "database": { "dialect": "sqlite",\n    "url": ":memory:",, }\n}\n`
    )
    expect(stderr).toContain(`svc: cannot load the config file ${join(cwd, "svc.config.json")}:3:23:`)
  })

  it("a JSON config that is not an object (null, a number) says so, SVC_DATABASE_URL set or not", async () => {
    for (const text of ["null\n", "42\n"]) {
      for (const env of [{}, { SVC_DATABASE_URL: "./other.db" }]) {
        const { cwd, stderr } = await failingServe(text, env)
        expect(stderr).toBe(`svc: ${join(cwd, "svc.config.json")} must hold the options object (a JSON object)\n`)
      }
    }
  })

  it("a module config whose default export is not an object says so", async () => {
    const { cwd, stderr } = await failingServe("export default null\n", {}, "svc.config.mjs")
    expect(stderr).toBe(`svc: ${join(cwd, "svc.config.mjs")} must export the options object as its default export\n`)
  })

  it("a TypeScript syntax error gives the file, line and column", async () => {
    const { cwd, stderr } = await failingServe(
      `export default {\n  database: { dialect: "sqlite" as const, url: ":memory:" }\n  version: "1"\n}\n`,
      {},
      "svc.config.ts"
    )
    expect(stderr).toContain(
      `svc: cannot load the config file ${join(cwd, "svc.config.ts")}:3:3: Expected "}" but found "version"`
    )
  })

  it("a JavaScript syntax error gives the file, line and column", async () => {
    const { cwd, stderr } = await failingServe(
      `export default {\n  database: { dialect: "sqlite", url: ":memory:" }\n  version: "1"\n}\n`,
      {},
      "svc.config.mjs"
    )
    expect(stderr).toContain(
      `svc: cannot load the config file ${join(cwd, "svc.config.mjs")}:3:3: Unexpected identifier 'version'`
    )
  })

  it("a misspelled dialect gets the likely one", async () => {
    const { stderr } = await failingServe({
      database: { dialect: "postgresql", url: "postgres://app@db.internal/consents" }
    })
    expect(stderr).toContain(`database.dialect: "postgresql" is not a dialect; did you mean "postgres"?`)
    expect(stderr).toContain("Invalid svc configuration (1 problem)")
  })

  it("SVC_DATABASE_URL that is not a URL is named, and its value is not printed", async () => {
    const { stderr } = await failingServe(
      { database: { dialect: "postgres", url: "postgres://app@db.internal/consents" } },
      { SVC_DATABASE_URL: `app:${PASSWORD}@db.internal/consents` }
    )
    expect(stderr).toMatch(/SVC_DATABASE_URL: not a (postgres )?URL; a postgres URL looks like postgres:\/\//)
  })

  it("database.url of the wrong scheme is named", async () => {
    const { stderr } = await failingServe({
      database: { dialect: "mysql", url: `postgres://app:${PASSWORD}@db.internal/consents` }
    })
    expect(stderr).toContain("database.url: not a mysql URL")
  })

  it("PORT out of range is named as PORT", async () => {
    const cwd = tempDir()
    const result = await run(["serve"], cwd, { PORT: "99999" })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("svc: PORT=99999: not a port number (0 to 65535)")
    const flag = await run(["serve", "--port", "http"], cwd, { PORT: "3000" })
    expect(flag.stderr).toContain("svc: --port http: not a port number (0 to 65535)")
  })
})

describe("svc migrate: the same plain lines", () => {
  it("names the unreachable database", async () => {
    const cwd = tempDir()
    const port = await freePort()
    writeFileSync(
      join(cwd, "svc.config.json"),
      JSON.stringify({
        database: { dialect: "postgres", url: `postgres://app:${PASSWORD}@127.0.0.1:${port}/consents` }
      })
    )
    const result = await run(["migrate"], cwd)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `svc: cannot connect to PostgreSQL at 127.0.0.1:${port}, database "consents", user "app"`
    )
    expect(result.stderr).not.toContain(PASSWORD)
  })
})
