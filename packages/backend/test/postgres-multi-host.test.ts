import { type RunningServer, startServer } from "@svc/server"
import { afterAll, beforeAll, expect, it } from "vitest"
import { cookieSave, postCookieSave } from "./support/consent-saves.js"
import { freshDatabase, type FreshDatabase } from "./support/dialects.js"
import { optionalServers } from "./support/optional-servers.js"
import { freePort, type PgReplicas, startPgReplicas } from "./support/pg-replicas.js"
import { describeWith } from "./support/server-suites.js"

/*
 * libpq URLs on PostgreSQL: several hosts tried in order, `target_session_attrs`, `sslmode` with
 * libpq's meaning, and (with throwaway servers from SVC_TEST_PG_BIN) a switchover under load.
 */

const quiet = { observability: { requests: "none" as const } }
const listen = { port: 0, host: "127.0.0.1" }

/** The test database's URL with `hosts` in place of its one host, and `params` appended. */
const withHosts = (url: string, hosts: string, params: string) => {
  const parsed = new URL(url)
  return `${parsed.protocol}//${
    parsed.username === "" ? "" : `${parsed.username}@`
  }${hosts}${parsed.pathname}?${params}`
}

describeWith(optionalServers.postgres, "a libpq URL on PostgreSQL", () => {
  let db: FreshDatabase
  let down: number
  let live: string
  beforeAll(async () => {
    db = await freshDatabase("postgres")
    down = await freePort()
    live = new URL(db.database.url).host
  })
  afterAll(() => db.drop())

  it("skips a host that is down and serves on the next one (target_session_attrs=read-write, sslmode=prefer on a server without TLS)", async () => {
    const url = withHosts(
      db.database.url,
      `127.0.0.1:${down},${live}`,
      "target_session_attrs=read-write&sslmode=prefer"
    )
    const server = await startServer({ ...quiet, database: { ...db.database, url } }, listen)
    try {
      const saved = await postCookieSave(server.url)
      expect(saved.status).toBe(200)
      const read = await fetch(`${server.url}/subjects/${String(saved.body["subjectId"])}`)
      expect(read.status).toBe(200)
      expect((await db.query("SELECT count(*) AS n FROM svc_consents"))[0]?.["n"]).toBe("1")
      expect((await fetch(`${server.url}/init?country=FR`)).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it("refuses to start when no host is the kind asked for, naming each host and what it is", async () => {
    const url = withHosts(db.database.url, `127.0.0.1:${down},${live}`, "target_session_attrs=standby")
    const started = startServer({ ...quiet, database: { ...db.database, url } }, listen)
    await expect(started).rejects.toThrow(/no host is standby \(127\.0\.0\.1:\d+: .*; 127\.0\.0\.1:5432: primary\)/)
  })

  it("sslmode=require refuses a server that offers no TLS, as libpq does", async () => {
    const url = withHosts(db.database.url, live, "sslmode=require")
    const started = startServer({ ...quiet, database: { ...db.database, url } }, listen)
    await expect(started).rejects.toThrow(/does not support SSL/)
  })

  it("a URL svc cannot read is a configuration error naming the parameter", async () => {
    for (
      const [params, said] of [
        ["target_session_attrs=leader", /target_session_attrs must be one of any, read-write/],
        ["sslmode=always", /sslmode must be one of disable, allow, prefer/],
        ["sslmode=verify-ca", /verify-ca needs sslrootcert/]
      ] as const
    ) {
      const url = withHosts(db.database.url, `127.0.0.1:${down},${live}`, params)
      await expect(startServer({ ...quiet, database: { ...db.database, url } }, listen)).rejects.toThrow(said)
    }
  })
})

/**
 * A switchover under load on a real primary and standby: the primary is set read-only (what a
 * failover manager does first; its sessions then fail with 25006), the standby promoted. svc must
 * find the new primary by itself, answer nothing but 200 or `503 DATABASE_ERROR` with Retry-After
 * meanwhile, and every save it acknowledged must be on the new primary.
 */
describeWith(optionalServers.postgresBinaries, "a switchover on a primary and standby", (pgBin) => {
  let nodes: PgReplicas
  let server: RunningServer
  beforeAll(async () => {
    nodes = await startPgReplicas(pgBin)
    // The standby comes first in the URL: read-write must pass it over.
    const url = nodes.url([nodes.standby, nodes.primary], "target_session_attrs=read-write")
    server = await startServer({ ...quiet, database: { dialect: "postgres", url } }, listen)
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await nodes?.stop()
  })

  it("loses no acknowledged save and serves from the promoted standby within seconds", async () => {
    const acknowledged: Array<string> = []
    const refusals = new Map<string, number>()
    let running = true
    const saver = async () => {
      while (running) {
        const body = cookieSave()
        const response = await fetch(`${server.url}/subjects`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body)
        })
        const answer = await response.json() as { cause?: { code?: string } }
        if (response.status === 200) acknowledged.push(String(body["subjectId"]))
        else {
          const key = `${response.status} ${answer.cause?.code} retry-after=${response.headers.get("retry-after")}`
          refusals.set(key, (refusals.get(key) ?? 0) + 1)
        }
      }
    }
    const load = [saver(), saver(), saver(), saver()]
    const before = async (n: number) => {
      while (acknowledged.length < n) await new Promise((r) => setTimeout(r, 20))
    }
    await before(20)
    expect((await nodes.primary.query("SELECT count(*)::int AS n FROM svc_consents"))[0]?.["n"]).toBeGreaterThan(0)

    await nodes.primary.query("ALTER SYSTEM SET default_transaction_read_only = on")
    await nodes.primary.query("SELECT pg_reload_conf()")
    await new Promise((r) => setTimeout(r, 300))
    await nodes.promote(nodes.standby)
    const promotedAt = Date.now()
    const countAtPromotion = acknowledged.length
    // Serving again: saves acknowledged after the promotion.
    while (acknowledged.length < countAtPromotion + 20 && Date.now() - promotedAt < 15_000) {
      await new Promise((r) => setTimeout(r, 20))
    }
    running = false
    await Promise.all(load)

    expect(acknowledged.length).toBeGreaterThanOrEqual(countAtPromotion + 20)
    for (const key of refusals.keys()) expect(key).toBe("503 DATABASE_ERROR retry-after=2")
    const stored = new Set(
      (await nodes.standby.query("SELECT subject_id FROM svc_consents")).map((row) => String(row["subject_id"]))
    )
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([])
  }, 60_000)
})
