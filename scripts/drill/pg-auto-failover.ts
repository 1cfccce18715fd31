/**
 * A pg_auto_failover formation on this machine (Debian's postgresql-15-auto-failover): a monitor,
 * a primary and a synchronous standby, each a `pg_autoctl ... --run` process group of its own, in a
 * temporary directory. PostgreSQL refuses to run as root: as root every command runs as `postgres`.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"

const BIN = process.env.SVC_DRILL_PG_BIN ?? "/usr/lib/postgresql/15/bin"

export interface FormationNode {
  readonly name: string
  readonly port: number
  readonly pgdata: string
  process: ChildProcess | undefined
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export const startFormation = async (ports: { monitor: number; nodes: readonly [number, number] }) => {
  if (!existsSync(join(BIN, "pg_ctl")) || ![BIN, "/usr/bin"].some((d) => existsSync(join(d, "pg_autoctl")))) {
    throw new Error(
      `no pg_ctl in ${BIN} or no pg_autoctl: apt-get install postgresql-15-auto-failover (or set SVC_DRILL_PG_BIN)`
    )
  }
  const asRoot = process.getuid?.() === 0
  const dir = mkdtempSync(join(tmpdir(), "svc-drill-"))
  const uid = asRoot ? Number(execFileSync("id", ["-u", "postgres"]).toString().trim()) : undefined
  if (uid !== undefined) chownSync(dir, uid, 0)
  const env = {
    PATH: `${BIN}:/usr/bin:/bin:/usr/sbin:/sbin`,
    XDG_CONFIG_HOME: join(dir, "config"),
    XDG_DATA_HOME: join(dir, "data"),
    PG_AUTOCTL_DEBUG: "0"
  }
  const command = (args: ReadonlyArray<string>) =>
    asRoot
      ? ["runuser", ["-u", "postgres", "--", "env", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), "pg_autoctl",
        ...args]] as const
      : ["pg_autoctl", [...args]] as const
  const logs: Array<string> = []
  /** A `pg_autoctl ... --run` service in a process group of its own (so a SIGKILL takes all of it). */
  const run = (name: string, args: ReadonlyArray<string>) => {
    const [file, argv] = command(args)
    const child = spawn(file, argv, {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env }
    })
    const note = (chunk: Buffer) => logs.push(...chunk.toString().trim().split("\n").map((line) => `[${name}] ${line}`))
    child.stdout!.on("data", note)
    child.stderr!.on("data", note)
    return child
  }
  /**
   * An initialised data directory whose Unix socket is in `dir` (Debian's /var/run/postgresql may
   * not be writable by postgres); pg_autoctl adopts it. The standby's copy (pg_basebackup) inherits it.
   */
  const initdb = (pgdata: string) => {
    const [file, argv] = asRoot
      ? ["runuser", ["-u", "postgres", "--", join(BIN, "initdb"), "-D", pgdata, "-A", "trust", "-U", "postgres",
        "--no-sync"]] as const
      : [join(BIN, "initdb"), ["-D", pgdata, "-A", "trust", "-U", "postgres", "--no-sync"]] as const
    execFileSync(file, [...argv], { stdio: "ignore" })
    appendFileSync(join(pgdata, "postgresql.conf"), `\nunix_socket_directories = '${dir}'\n`)
  }
  const monitorData = join(dir, "monitor")
  initdb(monitorData)
  const monitorUri = `postgres://autoctl_node@127.0.0.1:${ports.monitor}/pg_auto_failover?sslmode=prefer`
  const ssl = ["--ssl-self-signed", "--ssl-mode", "prefer", "--auth", "trust", "--hostname", "127.0.0.1", "--listen",
    "127.0.0.1"]
  const monitor = run("monitor", ["create", "monitor", "--pgdata", monitorData, "--pgport", String(ports.monitor),
    ...ssl, "--run"])
  const query = async (port: number, database: string, text: string) => {
    const client = new pg.Client({
      host: "127.0.0.1",
      port,
      user: "postgres",
      database,
      connectionTimeoutMillis: 2_000
    })
    client.on("error", () => undefined)
    try {
      await client.connect()
      return (await client.query(text)).rows as Array<Record<string, unknown>>
    } finally {
      await client.end().catch(() => undefined)
    }
  }
  const groups: Array<ChildProcess> = [monitor]
  const until = async (what: string, seconds: number, check: () => Promise<boolean>) => {
    const deadline = Date.now() + seconds * 1000
    while (Date.now() < deadline) {
      if (await check().catch(() => false)) return
      await sleep(250)
    }
    // Leave nothing running behind a formation that did not come up.
    for (const group of groups) if (group.pid !== undefined) process.kill(-group.pid, "SIGKILL")
    throw new Error(`${what}: not after ${seconds} s\n${logs.slice(-40).join("\n")}`)
  }
  await until("the monitor", 120, async () => (await query(ports.monitor, "pg_auto_failover", "SELECT 1")).length === 1)

  const nodes: Array<FormationNode> = ports.nodes.map((port, i) => ({
    name: `node${i + 1}`,
    port,
    pgdata: join(dir, `node${i + 1}`),
    process: undefined
  }))
  const states = async () =>
    await query(
      ports.monitor,
      "pg_auto_failover",
      "SELECT nodename, nodeport, reportedstate, goalstate FROM pgautofailover.node ORDER BY nodeid"
    )
  const startNode = (node: FormationNode) => {
    node.process = run(node.name, [
      "create",
      "postgres",
      "--pgdata",
      node.pgdata,
      "--pgport",
      String(node.port),
      "--name",
      node.name,
      "--dbname",
      "svc",
      "--pghost",
      dir,
      "--monitor",
      monitorUri,
      ...ssl,
      "--run"
    ])
    groups.push(node.process)
  }
  initdb(nodes[0]!.pgdata)
  startNode(nodes[0]!)
  await until("node1 primary", 180, async () => (await states()).some((s) => s["reportedstate"] === "single"))
  startNode(nodes[1]!)
  await until(
    "node2 a synchronous standby",
    300,
    async () => {
      const all = await states()
      return all.some((s) => s["reportedstate"] === "primary" && s["goalstate"] === "primary") &&
        all.some((s) => s["reportedstate"] === "secondary" && s["goalstate"] === "secondary")
    }
  )
  const uri = execFileSync(command(["show", "uri", "--formation", "default", "--monitor", monitorUri])[0], [
    ...command(["show", "uri", "--formation", "default", "--monitor", monitorUri])[1]
  ], { env: { ...process.env, ...env } }).toString().trim()

  const kill = (group: ChildProcess | undefined) => {
    if (group?.pid === undefined) return
    try {
      process.kill(-group.pid, "SIGKILL")
    } catch {
      // already gone
    }
  }
  /** The postmaster's pid, from its data directory. */
  const postmaster = (node: FormationNode) => {
    const file = join(node.pgdata, "postmaster.pid")
    return existsSync(file) ? Number(readFileSync(file, "utf8").split("\n")[0]) : undefined
  }
  return {
    uri,
    nodes,
    monitorPort: ports.monitor,
    logs,
    states,
    query,
    /** Which node is primary now, by asking each (the monitor may not know yet). */
    primary: async () => {
      for (const node of nodes) {
        const rows = await query(node.port, "svc", "SELECT pg_is_in_recovery() AS standby").catch(() => [])
        if (rows[0]?.["standby"] === false) return node
      }
      return undefined
    },
    synchronousStandbyNames: async (node: FormationNode) =>
      String((await query(node.port, "svc", "SHOW synchronous_standby_names"))[0]?.["synchronous_standby_names"]),
    /** SIGKILL to the node's whole pg_autoctl process group and its postmaster: the machine is gone. */
    killNode: (node: FormationNode) => {
      const pid = postmaster(node)
      kill(node.process)
      if (pid !== undefined) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          // already gone
        }
      }
    },
    stop: async () => {
      for (const node of nodes) {
        const pid = postmaster(node)
        kill(node.process)
        if (pid !== undefined) {
          try {
            process.kill(pid, "SIGKILL")
          } catch {
            // already gone
          }
        }
      }
      const pid = postmaster({ name: "monitor", port: ports.monitor, pgdata: monitorData, process: undefined })
      kill(monitor)
      if (pid !== undefined) {
        try {
          process.kill(pid, "SIGKILL")
        } catch {
          // already gone
        }
      }
      await sleep(500)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

export type Formation = Awaited<ReturnType<typeof startFormation>>
