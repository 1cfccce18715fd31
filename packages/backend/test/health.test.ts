import { describe, expect, it } from "@effect/vitest"
import { type SqlDialect, type SvcOptions } from "@svc/backend"
import { type RunningServer, startServer } from "@svc/server"
import { Effect } from "effect"
import { rename } from "node:fs/promises"
import { connect } from "node:net"
import { vi } from "vitest"
import { dialects, type FreshDatabase, freshDatabase } from "./support/dialects.js"
import { useServer } from "./support/server.js"
import { startTcpProxy } from "./support/tcp-proxy.js"

const READY_WITHIN_MS = 2_000

const readyAnswer = async (base: string) => {
  const response = await fetch(`${base}/health/ready`)
  return { status: response.status, body: await response.json() as unknown }
}

/** Polls `/health/ready` every 50 ms until it answers `status`; the time it took, in ms. */
const untilReady = async (base: string, status: number, limitMs: number) => {
  const started = performance.now()
  for (;;) {
    const answer = await readyAnswer(base)
    const elapsed = performance.now() - started
    if (answer.status === status) return { elapsed, body: answer.body }
    if (elapsed > limitMs) throw new Error(`no ${status} within ${limitMs} ms (last: ${JSON.stringify(answer)})`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A server on `db`, reached through a stoppable TCP proxy for the server dialects. */
const serverThroughProxy = async (dialect: SqlDialect, db: FreshDatabase) => {
  if (dialect === "sqlite") {
    const running = await startServer({ database: db.database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1"
    })
    const file = db.database.url
    // SQLite has no server: the path no longer naming the file svc opened is its "going away".
    return {
      running,
      cut: () => rename(file, `${file}.moved`),
      restore: () => rename(`${file}.moved`, file),
      hang: undefined,
      stop: async () => {}
    }
  }
  const direct = new URL(db.database.url)
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) })
  const proxied = new URL(db.database.url)
  proxied.host = `127.0.0.1:${proxy.port()}`
  const running = await startServer({
    database: { ...db.database, url: proxied.toString() },
    observability: { requests: "none" }
  }, { port: 0, host: "127.0.0.1" })
  return {
    running,
    cut: proxy.stop,
    restore: proxy.start,
    hang: { freeze: async () => proxy.freeze(), thaw: async () => proxy.thaw() },
    stop: proxy.stop
  }
}

describe.each(dialects)("health probes [%s]", (dialect) => {
  const server = useServer(dialect)

  it.effect("live and ready answer 200 through the derived client, never cached", () =>
    Effect.gen(function*() {
      const client = yield* server.client
      expect(yield* client.health.live()).toEqual({ status: "live" })
      expect(yield* client.health.ready()).toEqual({ status: "ready" })
      for (const path of ["/health/live", "/health/ready"]) {
        const response = yield* Effect.promise(() => server.fetch(path))
        expect(response.status).toBe(200)
        expect(response.headers.get("cache-control")).toBe("no-store")
      }
    }))

  const outage = async (
    kind: "gone" | "hung",
    check: (base: string) => Promise<void> = async () => {}
  ) => {
    const db = await freshDatabase(dialect)
    const { cut, hang, restore, running, stop } = await serverThroughProxy(dialect, db)
    const [down, back] = kind === "gone" ? [cut, restore] : [hang!.freeze, hang!.thaw]
    try {
      expect((await readyAnswer(running.url)).status).toBe(200)
      await down()
      const unready = await untilReady(running.url, 503, 5_000)
      expect(unready.elapsed).toBeLessThan(READY_WITHIN_MS)
      expect(unready.body).toEqual({ message: expect.stringMatching(/^The database/), cause: { code: "NOT_READY" } })
      // Every other probe also says so while it is gone.
      expect((await readyAnswer(running.url)).status).toBe(503)
      const response = await fetch(`${running.url}/health/ready`)
      expect(response.headers.get("cache-control")).toBe("no-store")
      await response.body?.cancel()
      // Liveness is about the process, which is fine.
      expect((await fetch(`${running.url}/health/live`)).status).toBe(200)
      await check(running.url)
      await back()
      const up = await untilReady(running.url, 200, 10_000)
      expect(up.body).toEqual({ status: "ready" })
    } finally {
      await running.close()
      await stop()
      await db.drop()
    }
  }

  it(
    "ready answers 503 NOT_READY within 2 s of the database going away, and 200 once it is back",
    () => outage("gone"),
    30_000
  )

  it.runIf(dialect !== "sqlite")(
    "ready answers 503 within 2 s of the database hanging (no refusal, no answer), and 200 once it answers",
    () =>
      outage("hung", async (base) => {
        // A probe while it hangs is answered within the query's time limit, not left waiting.
        const started = performance.now()
        const answer = await readyAnswer(base)
        expect(answer).toEqual({
          status: 503,
          body: { message: "The database did not answer within 1000 ms", cause: { code: "NOT_READY" } }
        })
        expect(performance.now() - started).toBeLessThan(READY_WITHIN_MS)
      }),
    30_000
  )

  it("an unmigrated database is not ready, and the answer names svc migrate", async () => {
    const db = await freshDatabase(dialect)
    const running = await startServer({ database: db.database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1",
      migrate: false
    })
    try {
      const answer = await readyAnswer(running.url)
      expect(answer).toEqual({
        status: 503,
        body: { message: expect.stringContaining("svc migrate"), cause: { code: "NOT_READY" } }
      })
    } finally {
      await running.close()
      await db.drop()
    }
  })
})

describe("health probes and the server around them", () => {
  const withServer = async (options: Omit<SvcOptions, "database">, use: (running: RunningServer) => Promise<void>) => {
    const db = await freshDatabase("sqlite")
    const running = await startServer({ ...options, database: db.database }, { port: 0, host: "127.0.0.1" })
    try {
      await use(running)
    } finally {
      await running.close()
      await db.drop()
    }
  }

  it("a server that drains answers ready with 503 to a request still arriving", async () => {
    await withServer({ observability: { requests: "none" } }, async (running) => {
      const { hostname, port } = new URL(running.url)
      const socket = connect({ host: hostname, port: Number(port) })
      await new Promise((resolve) => socket.once("connect", resolve))
      const answer = new Promise<string>((resolve) => {
        let text = ""
        socket.on("data", (chunk) => (text += chunk.toString("latin1")))
        socket.on("close", () => resolve(text))
      })
      // The request has begun (so the connection is not idle) when the drain starts; it ends after.
      socket.write("GET /health/ready HTTP/1.1\r\nhost: svc\r\n")
      await new Promise((resolve) => setTimeout(resolve, 50))
      const closed = running.close()
      await new Promise((resolve) => setTimeout(resolve, 50))
      socket.end("connection: close\r\n\r\n")
      const text = await answer
      await closed
      expect(text).toMatch(/^HTTP\/1\.1 503 /)
      expect(text).toContain(`{"message":"The server is shutting down","cause":{"code":"NOT_READY"}}`)
    })
  })

  /** Every line the process writes through `console` while `use` runs. */
  const logged = async (use: () => Promise<void>) => {
    const lines: Array<string> = []
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
        lines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "))
      })
    )
    try {
      await use()
    } finally {
      spies.forEach((spy) => spy.mockRestore())
    }
    return lines
  }

  it("probes are not logged at the default level, even unready; a change of readiness is, once", async () => {
    const db = await freshDatabase("sqlite")
    const running = await startServer({ database: db.database, observability: { format: "json" } }, {
      port: 0,
      host: "127.0.0.1"
    })
    try {
      const lines = await logged(async () => {
        for (let i = 0; i < 3; i++) expect((await readyAnswer(running.url)).status).toBe(200)
        await rename(db.database.url, `${db.database.url}.moved`)
        for (let i = 0; i < 3; i++) expect((await readyAnswer(running.url)).status).toBe(503)
        await rename(`${db.database.url}.moved`, db.database.url)
        expect((await readyAnswer(running.url)).status).toBe(200)
        expect((await fetch(`${running.url}/health/live`)).status).toBe(200)
        // A 404 is still logged at this level: the log is on.
        expect((await fetch(`${running.url}/nope`)).status).toBe(404)
      })
      const entries = lines.map((line) => JSON.parse(line) as { message: unknown; annotations: { route?: unknown } })
      expect(entries.filter((e) => e.message === "request").map((e) => e.annotations.route)).toEqual(["(unknown)"])
      expect(entries.map((e) => e.message)).toEqual([
        "not ready: The database is unreachable",
        "ready again (was: The database is unreachable)",
        "request"
      ])
    } finally {
      await running.close()
      await db.drop()
    }
  })

  it("at requests: 'all' probes are logged like any request", async () => {
    await withServer({ observability: { requests: "all", format: "json" } }, async (running) => {
      const lines = await logged(async () => {
        await fetch(`${running.url}/health/live`)
        await fetch(`${running.url}/health/ready`)
      })
      const routes = lines.map((line) => JSON.parse(line) as { annotations: { route?: unknown } })
        .map((e) => e.annotations.route)
      expect(routes).toEqual(["/health/live", "/health/ready"])
    })
  })

  it("the OpenAPI document lists both probes as public, ready with its 503", async () => {
    await withServer({}, async (running) => {
      const spec = await (await fetch(`${running.url}/spec.json`)).json() as {
        paths: Record<string, { get: { security?: unknown; responses: Record<string, unknown> } }>
      }
      expect(Object.keys(spec.paths["/health/live"]!.get.responses)).toContain("200")
      expect(Object.keys(spec.paths["/health/ready"]!.get.responses)).toEqual(expect.arrayContaining(["200", "503"]))
      expect(spec.paths["/health/ready"]!.get.security ?? []).toEqual([])
    })
  })
})
