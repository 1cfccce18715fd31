/**
 * A PostgreSQL cluster of the bench's own, for figures a shared cluster blurs (its WAL counters
 * and fsyncs are the whole cluster's): `initdb` in a temporary directory from the server binaries
 * in `bin` (Debian: /usr/lib/postgresql/15/bin), a free port, durable commits (`fsync = on`,
 * `synchronous_commit = on`, the defaults, written out so no inherited setting changes them), the
 * time of each WAL sync counted (`track_wal_io_timing`) and otherwise PostgreSQL's defaults. As root the server runs as the `postgres` user.
 */
import { execFile } from "node:child_process"
import { chownSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { freePort } from "./processes.js"

const run = promisify(execFile)

export interface ThrowawayPg {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string
  /** The postmaster's pid (its children are the cluster's processes). */
  readonly postmaster: number
  /** The WAL between two positions split by `pg_waldump --stats`: record bytes and full-page image bytes. */
  readonly walSplit: (from: string, to: string) => Promise<{ readonly records: number; readonly fpi: number }>
  readonly stop: () => Promise<void>
}

export const startThrowawayPg = async (bin: string): Promise<ThrowawayPg> => {
  const asRoot = process.getuid?.() === 0
  // Under /var/tmp rather than /tmp (SVC_BENCH_PG_DIR elsewhere): on disk even where /tmp is a
  // tmpfs, whose fsync costs nothing.
  const dir = mkdtempSync(join(process.env.SVC_BENCH_PG_DIR ?? "/var/tmp", "svc-bench-pg-"))
  if (asRoot) chownSync(dir, Number((await run("id", ["-u", "postgres"])).stdout.trim()), 0)
  const exec = (tool: string, args: ReadonlyArray<string>) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", join(bin, tool), ...args]) : run(join(bin, tool), [...args])
  const data = join(dir, "data")
  const port = await freePort()
  await exec("initdb", ["-D", data, "-A", "trust", "-U", "postgres"])
  await exec("pg_ctl", [
    "-D",
    data,
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=on -c synchronous_commit=on -c track_wal_io_timing=on`,
    "-l",
    join(dir, "log"),
    "-w",
    "start"
  ])
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    postmaster: Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]),
    walSplit: async (from, to) => {
      const { stdout } = await exec("pg_waldump", ["-p", join(data, "pg_wal"), "-s", from, "-e", to, "--stats"])
      // "Total  <records>  <record bytes> [..%]  <FPI bytes> [..%]  <combined> [100%]"
      const total = /^Total\s+\d+\s+(\d+)\s+\[[^\]]*\]\s+(\d+)/m.exec(stdout)
      if (total === null) throw new Error(`pg_waldump --stats printed no total:\n${stdout}`)
      return { records: Number(total[1]), fpi: Number(total[2]) }
    },
    stop: async () => {
      await exec("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]).catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
