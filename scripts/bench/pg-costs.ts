/**
 * What a request costs PostgreSQL, for the scale and capacity benches: the WAL the cluster wrote
 * (`pg_current_wal_lsn()`, `pg_stat_wal`) and the CPU time of the backends serving one svc (told
 * apart by `application_name`), or of every process of a cluster the bench started itself.
 */
import { readFile } from "node:fs/promises"
import type pg from "pg"
import { cpuSeconds } from "./processes.js"

/** `url` with `application_name` set, so the backends serving it can be found in `pg_stat_activity`. */
export const withApplicationName = (url: string, name: string) => {
  const parsed = new URL(url)
  parsed.searchParams.set("application_name", name)
  return parsed.toString()
}

export interface WalNow {
  readonly lsn: string
  readonly records: string
  readonly fpi: string
  readonly bytes: string
  readonly writes: string
  readonly syncs: string
  readonly syncMs: string
}

/** The cluster's WAL position and counters now. */
export const walNow = async (client: pg.Client): Promise<WalNow> => {
  const { rows } = await client.query<WalNow>(
    `SELECT pg_current_wal_lsn() AS lsn, wal_records AS records, wal_fpi AS fpi, wal_bytes AS bytes,
       wal_write AS writes, wal_sync AS syncs, wal_sync_time AS "syncMs"
     FROM pg_stat_wal`
  )
  return rows[0]!
}

export interface WalWritten {
  /** Bytes between the two WAL positions. */
  readonly lsnBytes: number
  readonly records: number
  /** Full-page images. */
  readonly fpi: number
  /** Times WAL buffers were written out (`write()`), and synced to disk (`fdatasync` or the like). */
  readonly writes: number
  readonly syncs: number
  /** Milliseconds spent in those syncs; 0 unless `track_wal_io_timing` is on. */
  readonly syncMs: number
}

/** The WAL the whole cluster wrote since `before`. */
export const walSince = async (client: pg.Client, before: WalNow): Promise<WalWritten> => {
  const after = await walNow(client)
  const { rows } = await client.query<{ lsnBytes: string }>(
    `SELECT pg_wal_lsn_diff($1, $2) AS "lsnBytes"`,
    [after.lsn, before.lsn]
  )
  const delta = (key: "records" | "fpi" | "writes" | "syncs" | "syncMs") => Number(after[key]) - Number(before[key])
  return {
    lsnBytes: Number(rows[0]!.lsnBytes),
    records: delta("records"),
    fpi: delta("fpi"),
    writes: delta("writes"),
    syncs: delta("syncs"),
    syncMs: delta("syncMs")
  }
}

/** CPU seconds so far of each process in `pids` (gone ones left out). */
export type CpuSnapshot = ReadonlyMap<number, number>

const snapshot = async (pids: ReadonlyArray<number>): Promise<CpuSnapshot> => {
  const cpu = await Promise.all(pids.map(async (pid) => [pid, await cpuSeconds(pid)] as const))
  return new Map(cpu.filter(([, seconds]) => !Number.isNaN(seconds)))
}

/**
 * CPU seconds used between two snapshots by the processes alive at the second: a process started
 * in between counts from its start; one that ended in between takes its CPU with it (so measure
 * over a window in which the pool keeps its connections).
 */
export const cpuBetween = (before: CpuSnapshot, after: CpuSnapshot) =>
  [...after].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(pid) ?? 0), 0)

/** The PostgreSQL backends serving connections named `name`, with their CPU so far. */
export const backendsCpu = async (client: pg.Client, name: string): Promise<CpuSnapshot> => {
  const { rows } = await client.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = $1",
    [name]
  )
  return snapshot(rows.map((row) => row.pid))
}

/**
 * The postmaster and every process `pg_stat_activity` lists (backends, WAL writer, checkpointer,
 * background writer, autovacuum), with their CPU so far: a whole cluster, when the bench owns it.
 */
export const clusterCpu = async (client: pg.Client, postmaster: number): Promise<CpuSnapshot> => {
  const { rows } = await client.query<{ pid: number }>("SELECT pid FROM pg_stat_activity")
  return snapshot([postmaster, ...rows.map((row) => row.pid)])
}

/**
 * The machine's CPU time so far over every core (/proc/stat), in ticks: busy, idle while some
 * process waited on the disk (iowait), and in all.
 */
export const machineCpu = async () => {
  const line = (await readFile("/proc/stat", "utf8")).split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
  const total = line.slice(0, 8).reduce((a, b) => a + b, 0) // user … steal (guest time is inside user)
  return { busy: total - line[3]! - line[4]!, iowait: line[4]!, total }
}

/** The manifest the PostgreSQL benches serve: one opt-out rule over four categories. */
export const MANIFEST = {
  policyRules: [{
    id: "rest",
    match: { default: true },
    model: "opt-out",
    categories: ["measurement", "marketing", "functionality", "experience"]
  }]
}
