import { migrations } from "@svc/backend"
import { type RunningServer, startServer } from "@svc/server"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { cookieSave } from "./support/consent-saves.js"
import { dialects, freshDatabase } from "./support/dialects.js"

const REPLICAS = 4
const ROUNDS = 10
const PROCESS_ROUNDS = 1
const quiet = { observability: { requests: "none" as const } }

/** The real `svc` command (the bundled build that `npm test` makes first). */
const svcBin = fileURLToPath(new URL("../../server/bin/svc.js", import.meta.url))
const children = new Set<ChildProcess>()

/** `svc serve` in `cwd` (with its svc.config.json); resolves with its URL, rejects with its output if it exits. */
const serveProcess = (cwd: string) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [svcBin, "serve", "--port", "0", "--host", "127.0.0.1"], { cwd })
    children.add(child)
    let output = ""
    const onData = (data: Buffer) => {
      output += data
      const match = /svc listening on (http:\/\/\S+)/.exec(output)
      if (match) resolve(match[1]!)
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", (data: Buffer) => (output += data))
    child.on("exit", (code) => {
      children.delete(child)
      reject(new Error(`svc serve exited with ${code}: ${output}`))
    })
  })

const saveStatus = (url: string) =>
  fetch(`${url}/subjects`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(cookieSave())
  })
    .then((answer) => answer.status, (error: Error) => error.message)

describe.each(dialects)("replicas migrating at once [%s]", (dialect) => {
  afterEach(() => {
    for (const child of children) child.kill("SIGKILL")
    children.clear()
  })

  it(
    `${REPLICAS} \`svc serve\` processes started together on a fresh database all come up, ${PROCESS_ROUNDS} rounds`,
    async () => {
      for (let round = 0; round < PROCESS_ROUNDS; round++) {
        const db = await freshDatabase(dialect)
        try {
          const cwd = mkdtempSync(join(tmpdir(), "svc-replicas-"))
          writeFileSync(
            join(cwd, "svc.config.json"),
            JSON.stringify({ database: db.database, observability: { requests: "none" } })
          )
          const started = await Promise.allSettled(
            Array.from({ length: REPLICAS }, async () => saveStatus(await serveProcess(cwd)))
          )
          expect(started.map((s) => (s.status === "fulfilled" ? s.value : String(s.reason))), `round ${round}`).toEqual(
            Array(REPLICAS).fill(200)
          )
          const recorded = await db.query("SELECT migration_id, name FROM svc_migrations ORDER BY migration_id")
          expect(recorded.map((r) => [Number(r.migration_id), r.name])).toEqual(
            migrations.map(([id, name]) => [id, name])
          )
        } finally {
          for (const child of children) child.kill("SIGKILL")
          children.clear()
          await db.drop()
        }
      }
    },
    120_000
  )

  it(`${REPLICAS} servers started together on a fresh database all come up, ${ROUNDS} rounds`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const db = await freshDatabase(dialect)
      // Each replica saves as soon as it is up, while the others may still be starting.
      const started = await Promise.allSettled(
        Array.from({ length: REPLICAS }, async () => {
          const server = await startServer({ ...quiet, database: db.database }, { port: 0, host: "127.0.0.1" })
          return { server, saved: await saveStatus(server.url) }
        })
      )
      const running = started.flatMap((s) => (s.status === "fulfilled" ? [s.value.server] : []))
      try {
        const failures = started.flatMap((
          s
        ) => (s.status === "rejected" ? [String(s.reason?.message ?? s.reason)] : []))
        expect(failures, `round ${round}`).toEqual([])
        expect(started.map((s) => s.status === "fulfilled" && s.value.saved), `round ${round}`).toEqual(
          Array(REPLICAS).fill(200)
        )
        const recorded = await db.query("SELECT migration_id, name FROM svc_migrations ORDER BY migration_id")
        expect(recorded.map((r) => [Number(r.migration_id), r.name])).toEqual(
          migrations.map(([id, name]) => [id, name])
        )
      } finally {
        await Promise.all(running.map((server: RunningServer) => server.close()))
        await db.drop()
      }
    }
  }, 120_000)

  it("a failing migration says which one and the driver's reason, and records nothing", async () => {
    const db = await freshDatabase(dialect)
    try {
      if (db.database.schema !== undefined) await db.query(`CREATE SCHEMA ${db.database.schema}`)
      await db.query("CREATE TABLE svc_consents (id INTEGER)")
      const start = () =>
        startServer({ ...quiet, database: db.database }, { port: 0, host: "127.0.0.1" }).then(
          (server) => server.close().then(() => "started"),
          (error: Error) => error.message
        )
      const failure = await start()
      expect(failure).toMatch(/Migration 2-consents failed: .*svc_consents.*(already exists|exists)/i)
      expect(failure).not.toMatch(/postgres:\/\/|mysql:\/\//)
      if (dialect === "mysql") {
        // DDL commits at once on MySQL: migration 1 stays, the failed one is not recorded as applied.
        const recorded = await db.query("SELECT migration_id FROM svc_migrations ORDER BY migration_id")
        expect(recorded.map((r) => Number(r.migration_id))).toEqual([1])
      } else {
        // Transactional DDL (Postgres, SQLite): the failed run leaves nothing behind, not even its tables.
        const leftover = await db.query("SELECT COUNT(*) AS n FROM svc_subjects").then(
          () => "svc_subjects",
          () => "nothing"
        )
        expect(leftover).toBe("nothing")
      }
      // The next start tries again and says the same, rather than serving a half-made schema.
      expect(await start()).toBe(failure)
    } finally {
      await db.drop()
    }
  }, 60_000)
})
