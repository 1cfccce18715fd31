import { execFile } from "node:child_process"
import { chownSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import pg from "pg"

/*
 * A throwaway PostgreSQL primary and a streaming standby (pg_basebackup -R) on free local ports,
 * from the server binaries in `SVC_TEST_PG_BIN` (Debian: /usr/lib/postgresql/15/bin). The servers
 * refuse to run as root, so as root they run as the `postgres` user.
 */

const run = promisify(execFile)

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

export interface PgNode {
  readonly port: number
  readonly query: (text: string) => Promise<Array<Record<string, unknown>>>
}

export interface PgReplicas {
  readonly primary: PgNode
  readonly standby: PgNode
  /** `postgres://postgres@host:port/svc` for the given nodes, in that order. */
  readonly url: (nodes: ReadonlyArray<PgNode>, params?: string) => string
  readonly promote: (node: PgNode) => Promise<void>
  readonly stop: () => Promise<void>
}

export const startPgReplicas = async (bin: string): Promise<PgReplicas> => {
  const asRoot = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), "svc-pg-"))
  if (asRoot) chownSync(dir, Number((await run("id", ["-u", "postgres"])).stdout.trim()), 0)
  const exec = (tool: string, args: ReadonlyArray<string>) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, tool), ...args]) : run(join(bin, tool), [...args])
  const [primaryPort, standbyPort] = [await freePort(), await freePort()]
  const start = (data: string, port: number) =>
    exec("pg_ctl", [
      "-D",
      data,
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`,
      "-l",
      `${data}.log`,
      "-w",
      "start"
    ])
  const primaryData = join(dir, "primary")
  const standbyData = join(dir, "standby")
  await exec("initdb", ["-D", primaryData, "-A", "trust", "-U", "postgres", "--no-sync"])
  await start(primaryData, primaryPort)
  const node = (port: number): PgNode => ({
    port,
    query: async (text) => {
      const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database: "svc" })
      await client.connect()
      try {
        return (await client.query(text)).rows
      } finally {
        await client.end()
      }
    }
  })
  const admin = new pg.Client({ host: "127.0.0.1", port: primaryPort, user: "postgres", database: "postgres" })
  await admin.connect()
  await admin.query("CREATE DATABASE svc")
  await admin.end()
  await exec("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primaryPort), "-U", "postgres", "-D", standbyData, "-R",
    "--checkpoint=fast"])
  await start(standbyData, standbyPort)
  const data = new Map([[primaryPort, primaryData], [standbyPort, standbyData]])
  return {
    primary: node(primaryPort),
    standby: node(standbyPort),
    url: (nodes, params = "") =>
      `postgres://postgres@${nodes.map((n) => `127.0.0.1:${n.port}`).join(",")}/svc${
        params === "" ? "" : `?${params}`
      }`,
    promote: async (promoted) => {
      await exec("pg_ctl", ["-D", data.get(promoted.port)!, "-w", "promote"])
    },
    stop: async () => {
      for (const d of [standbyData, primaryData]) {
        await exec("pg_ctl", ["-D", d, "-m", "immediate", "stop"]).catch(() => undefined)
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
