/**
 * What one PostgreSQL primary takes from svc (issue #25), on a fresh schema migrated by `svc migrate`:
 *
 * 1. Saves of new subjects (`POST /subjects`) for each pool size in SVC_BENCH_POOLS
 *    (`database.maxConnections`, default 1,2,4,8,16,32,64), first with as many client connections as
 *    the pool (every connection busy, nothing queued in svc), then with as many as the largest pool
 *    (plenty of demand: the pool is the limit). Per point: saves/s, p99, and per save (saves counted
 *    in the table, not by the load generator): svc's CPU, its PostgreSQL backends' CPU (told apart
 *    by `application_name`), the WAL written (bytes, records, full-page images, write() calls and
 *    syncs from `pg_stat_wal`), the machine's busy and iowait share and the load average. The
 *    knee, the smallest pool reaching 95% of the best saves/s with plenty of demand, is printed
 *    with whether the machine's CPU was what ran out.
 * 2. Group commit: the same saves at 32 connections on a pool of 32 with `commit_delay` (each of
 *    SVC_BENCH_COMMIT_DELAYS µs, default 100,1000) and `commit_siblings = 5`, set for svc's own
 *    sessions through the URL's `options` (never the cluster's settings; it needs a superuser),
 *    beside the pool-1 and pool-32 points above (no grouping possible; PostgreSQL's own grouping
 *    of concurrent commits into one WAL flush).
 * 3. A subject read (`GET /subjects/:id`, one consent) at 32 connections: svc's and PostgreSQL's
 *    CPU per read.
 *
 * SVC_BENCH_REPLICAS=n runs n svc processes per point, each with the point's pool, the clients spread
 * over them: one Node process saturates near one core (~600 saves/s), far below what a large
 * primary takes, so finding a primary's knee takes as many replicas as the primary has cores to
 * spare, and load-generating cores to match (the load generator is this one Node process).
 *
 * The WAL counters are the whole cluster's. With SVC_BENCH_PG_BIN (Debian:
 * /usr/lib/postgresql/15/bin) the bench starts a cluster of its own (`fsync` and `synchronous_commit`
 * on, else PostgreSQL's defaults; throwaway-pg.ts), counts every one of its processes' CPU too
 * (WAL writer, checkpointer, autovacuum) and splits the WAL into records and full-page images with
 * `pg_waldump`, and times each WAL sync (`track_wal_io_timing`); otherwise it runs on
 * SVC_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres) and prints the WAL of an
 * idle window beside, for the other work on that cluster. Every svc runs at once; with
 * SVC_BENCH_ROUNDS=n each point is measured n times, the points alternated within a round, and the
 * rounds summed. Between points the bench waits until svc's backends are idle (see `settle`).
 * Prints, never asserts (ADR 0088). Runs only when named (~2 minutes with the defaults).
 *
 *   npm run bench -- capacity
 *   SVC_BENCH_PG_BIN=/usr/lib/postgresql/15/bin SVC_BENCH_ROUNDS=3 SVC_BENCH_SECONDS=5 npm run bench -- capacity
 *   SVC_BENCH_POOLS=1,2,4,...  SVC_BENCH_COMMIT_DELAYS=100,1000
 */
import type { ChildProcess } from "node:child_process"
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import {
  backendsCpu,
  clusterCpu,
  cpuBetween,
  machineCpu,
  MANIFEST,
  walNow,
  walSince,
  type WalWritten,
  withApplicationName
} from "./pg-costs.js"
import { buildServerBundle, cpuSeconds, freePort, ROOT, ROUNDS, startNode, stop, SVC_BIN } from "./processes.js"
import { measureReads, measureSaves, type Measured, seed } from "./subjects.js"
import { startThrowawayPg, type ThrowawayPg } from "./throwaway-pg.js"

const SECONDS = Number(process.env.SVC_BENCH_SECONDS ?? 3)
/** Seconds of load before each svc's first point: its pool's connections open, its hot code compiled. */
const WARM_UP = 2
const numbers = (list: string) => list.split(",").map(Number).filter((n) => Number.isSafeInteger(n) && n > 0)
const POOLS = numbers(process.env.SVC_BENCH_POOLS ?? "1,2,4,8,16,32,64")
/** svc processes per point, each with the pool size of the point (SVC_BENCH_REPLICAS). */
const REPLICAS = Number(process.env.SVC_BENCH_REPLICAS ?? 1)
const DEMAND = Math.max(...POOLS) * REPLICAS
const DELAYS = numbers(process.env.SVC_BENCH_COMMIT_DELAYS ?? "100,1000")
const GROUP = 32
/** Each replica's pool in the commit_delay points: 32 connections in all. */
const GROUP_POOL = Math.max(1, Math.round(GROUP / REPLICAS))
const SIBLINGS = 5
const PG_BIN = process.env.SVC_BENCH_PG_BIN
interface Point {
  readonly label: string
  readonly measured: Measured
  /** Committed saves (rows added), or reads answered. */
  readonly count: number
  readonly seconds: number
  readonly svcCpu: number
  readonly backends: number
  readonly backendCpu: number
  /** Every process of a cluster the bench owns; `undefined` on a given URL. */
  readonly clusterCpu: number | undefined
  readonly wal: WalWritten
  /** Record and full-page-image bytes (pg_waldump), on a cluster the bench owns. */
  readonly walSplit: { readonly records: number; readonly fpi: number } | undefined
  readonly busy: number
  readonly iowait: number
  readonly load: number
}

interface Bench {
  readonly client: pg.Client
  readonly cluster: ThrowawayPg | undefined
  readonly url: string
  readonly schema: string
  readonly dir: string
}

/**
 * Waits (up to 10 s) until every backend of the svc named `name` is idle outside a transaction.
 * The load generator ends each run by closing its connections, which interrupts the saves in
 * flight; @effect/sql-pg cancels an interrupted statement with `pg_cancel_backend` on another
 * connection of the same pool, holding the interrupted one meanwhile (up to 5 s when the pool has
 * none free: always, at a pool of one). A point starts only once that is over.
 */
const settle = async (bench: Bench, name: string) => {
  const deadline = performance.now() + 10_000
  while (performance.now() < deadline) {
    const { rows: busy } = await bench.client.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND state <> 'idle'",
      [name]
    )
    if (Number(busy[0]!.n) === 0) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const rows = async (bench: Bench) =>
  Number((await bench.client.query<{ n: string }>(`SELECT count(*) AS n FROM ${bench.schema}.svc_consents`)).rows[0]!.n)

/** Runs `load` against `svc` (its replicas, application_name `name`) and what it cost, per request. */
const measurePoint = async (
  bench: Bench,
  { name, servers }: Svc,
  label: string,
  load: () => Promise<Measured>,
  counted: "saves" | "reads"
): Promise<Point> => {
  const svcCpu = async () =>
    (await Promise.all(servers.map((server) => cpuSeconds(server.pid!)))).reduce((a, b) => a + b)
  const snapshots = async () => ({
    backends: await backendsCpu(bench.client, name),
    cluster: bench.cluster === undefined ? undefined : await clusterCpu(bench.client, bench.cluster.postmaster),
    svc: await svcCpu()
  })
  await settle(bench, name)
  const rowsBefore = counted === "saves" ? await rows(bench) : 0
  const wal = await walNow(bench.client)
  const before = await snapshots()
  const machineBefore = await machineCpu()
  const started = performance.now()
  const measured = await load()
  const seconds = (performance.now() - started) / 1000
  const machineAfter = await machineCpu()
  await settle(bench, name) // saves in flight at the end commit, or roll back when interrupted
  const after = await snapshots()
  const written = await walSince(bench.client, wal)
  const end = await walNow(bench.client)
  const count = counted === "saves" ? await rows(bench) - rowsBefore : measured.answered
  const ticks = machineAfter.total - machineBefore.total
  return {
    label,
    measured,
    count,
    seconds,
    svcCpu: after.svc - before.svc,
    backends: after.backends.size,
    backendCpu: cpuBetween(before.backends, after.backends),
    clusterCpu: before.cluster === undefined || after.cluster === undefined
      ? undefined
      : cpuBetween(before.cluster, after.cluster),
    wal: written,
    walSplit: bench.cluster === undefined || written.lsnBytes === 0
      ? undefined
      : await bench.cluster.walSplit(wal.lsn, end.lsn),
    busy: (machineAfter.busy - machineBefore.busy) / ticks,
    iowait: (machineAfter.iowait - machineBefore.iowait) / ticks,
    load: loadavg()[0]!
  }
}

/**
 * REPLICAS `svc serve` processes on the bench's schema with this pool size each, and `commit_delay`
 * (µs) for their sessions if given; their PostgreSQL backends share one `application_name`.
 */
const startSvc = async (bench: Bench, maxConnections: number, commitDelay?: number) => {
  const name = `${bench.schema}_${maxConnections}${commitDelay === undefined ? "" : `_delay_${commitDelay}`}`
  const url = new URL(withApplicationName(bench.url, name))
  if (commitDelay !== undefined) {
    url.searchParams.set("options", `-c commit_delay=${commitDelay} -c commit_siblings=${SIBLINGS}`)
  }
  const configFile = join(bench.dir, `${name}.json`)
  await writeFile(
    configFile,
    JSON.stringify({
      database: { dialect: "postgres", url: url.toString(), schema: bench.schema, maxConnections },
      observability: { requests: "none" },
      manifest: MANIFEST
    })
  )
  const servers: Array<ChildProcess> = []
  const origins: Array<string> = []
  for (let replica = 0; replica < REPLICAS; replica++) {
    const port = await freePort()
    servers.push(
      await startNode(
        [SVC_BIN, "serve", "--config", configFile, "--port", String(port), "--host", "127.0.0.1"],
        /listening on/
      )
    )
    origins.push(`http://127.0.0.1:${port}`)
  }
  return { servers, name, origins }
}

/**
 * `clients` connections spread over the replicas of `svc`, each running `run` at the same time; the
 * figures added up (p99: the worst replica's).
 */
const spread = async (
  svc: Svc,
  clients: number,
  run: (origin: string, connections: number) => Promise<Measured>
): Promise<Measured> => {
  const shares = svc.origins.map((origin, i) =>
    [origin, Math.floor(clients / REPLICAS) + (i < clients % REPLICAS ? 1 : 0)] as const
  ).filter(([, connections]) => connections > 0)
  const measured = await Promise.all(shares.map(([origin, connections]) => run(origin, connections)))
  const sum = (pick: (m: Measured) => number) => measured.reduce((total, m) => total + pick(m), 0)
  return {
    rps: sum((m) => m.rps),
    p99: Math.max(...measured.map((m) => m.p99)),
    errors: sum((m) => m.errors),
    answered: sum((m) => m.answered),
    cpuUs: Number.NaN
  }
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "-"
const µs = (seconds: number, count: number) => fmt((seconds * 1e6) / count)

const DIVIDER = "|--|--|--|--|--|--|--|--|--|--|--|--|--|--|--|"
const HEADER =
  "| point | /s | p99 ms | svc µs | PG backends µs (n) | PG all µs | WAL B (records + FPI) | WAL records | FPIs | " +
  "WAL writes | WAL syncs | per sync | µs a sync | machine busy, iowait | load |"

const printPoint = (point: Point, per: string) => {
  const { count, wal } = point
  const split = point.walSplit === undefined
    ? ""
    : ` (${fmt(point.walSplit.records / count)} + ${fmt(point.walSplit.fpi / count)})`
  console.log(
    `| ${point.label} | ${fmt(count / point.seconds)} | ${fmt(point.measured.p99)} | ${µs(point.svcCpu, count)} | ${
      µs(point.backendCpu, count)
    } (${point.backends}) | ${point.clusterCpu === undefined ? "-" : µs(point.clusterCpu, count)} | ${
      fmt(wal.lsnBytes / count)
    }${split} | ${fmt(wal.records / count, 1)} | ${fmt(wal.fpi / count, 2)} | ${fmt(wal.writes / count, 2)} | ${
      fmt(wal.syncs / count, 2)
    } | ${fmt(count / wal.syncs, 1)} ${per} | ${wal.syncMs > 0 ? fmt((wal.syncMs * 1000) / wal.syncs) : "-"} | ${
      fmt(100 * point.busy)
    }%, ${fmt(100 * point.iowait)}% | ${fmt(point.load, 1)} |${
      point.measured.errors > 0 ? ` ${point.measured.errors} errors` : ""
    }`
  )
}

type Svc = Awaited<ReturnType<typeof startSvc>>
/** The pool of one replica, and how many there are. */
const poolLabel = (pool: number) => `pool ${pool}${REPLICAS > 1 ? ` × ${REPLICAS} replicas` : ""}`

/** One figure measured in every round: on which svc, under what load. */
interface Plan {
  readonly label: string
  readonly svc: Svc
  readonly load: (svc: Svc, seconds: number) => Promise<Measured>
  readonly counted: "saves" | "reads"
}

/** The figures of several rounds of one plan as one: sums per request, means of the rest. */
const combine = (points: ReadonlyArray<Point>): Point => {
  const sum = (pick: (point: Point) => number) => points.reduce((total, point) => total + pick(point), 0)
  const seconds = sum((point) => point.seconds)
  const timed = (pick: (point: Point) => number) => sum((point) => pick(point) * point.seconds) / seconds
  const first = points[0]!
  const splits = points.flatMap((point) => point.walSplit === undefined ? [] : [point.walSplit])
  return {
    label: first.label,
    measured: {
      rps: timed((point) => point.measured.rps),
      p99: sum((point) => point.measured.p99) / points.length,
      errors: sum((point) => point.measured.errors),
      answered: sum((point) => point.measured.answered),
      cpuUs: Number.NaN
    },
    count: sum((point) => point.count),
    seconds,
    svcCpu: sum((point) => point.svcCpu),
    backends: Math.max(...points.map((point) => point.backends)),
    backendCpu: sum((point) => point.backendCpu),
    clusterCpu: first.clusterCpu === undefined ? undefined : sum((point) => point.clusterCpu ?? 0),
    wal: {
      lsnBytes: sum((point) => point.wal.lsnBytes),
      records: sum((point) => point.wal.records),
      fpi: sum((point) => point.wal.fpi),
      writes: sum((point) => point.wal.writes),
      syncs: sum((point) => point.wal.syncs),
      syncMs: sum((point) => point.wal.syncMs)
    },
    walSplit: splits.length < points.length ? undefined : {
      records: splits.reduce((total, split) => total + split.records, 0),
      fpi: splits.reduce((total, split) => total + split.fpi, 0)
    },
    busy: timed((point) => point.busy),
    iowait: timed((point) => point.iowait),
    load: sum((point) => point.load) / points.length
  }
}

/**
 * Every plan once per round, in order, ROUNDS times (so a spell of other work on the machine falls
 * on all of them alike), each after a warm-up on its svc (longer before the svc's first point).
 */
const measurePlans = async (bench: Bench, plans: ReadonlyArray<Plan>) => {
  const measured = plans.map((): Array<Point> => [])
  const warm = new Set<Svc>()
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, plan] of plans.entries()) {
      await plan.load(plan.svc, warm.has(plan.svc) ? 1 : WARM_UP) // its pool's connections, the JIT
      warm.add(plan.svc)
      measured[i]!.push(
        await measurePoint(
          bench,
          plan.svc,
          plan.label,
          () => plan.load(plan.svc, SECONDS),
          plan.counted
        )
      )
    }
  }
  return measured.map(combine)
}

const saves = (clients: number) => (svc: Svc, seconds: number) =>
  spread(svc, clients, (origin, connections) => measureSaves(origin, seconds, undefined, connections))

/** A svc with commit_delay for its sessions, or none when it cannot start (setting it takes a superuser). */
const startDelayed = async (bench: Bench, delay: number) => {
  try {
    return await startSvc(bench, GROUP_POOL, delay)
  } catch (error) {
    console.log(
      `commit_delay ${delay} µs: svc did not start (setting commit_delay takes a superuser): ${
        error instanceof Error ? error.message.split("\n")[0] : String(error)
      }`
    )
    return undefined
  }
}

/** The smallest pool whose saves/s with plenty of demand reach 95% of the best, and what ran out there. */
const printKnee = (demand: ReadonlyArray<Point>) => {
  const rate = (point: Point) => point.count / point.seconds
  const best = demand.reduce((a, b) => (rate(b) > rate(a) ? b : a))
  const knee = demand.find((point) => rate(point) >= 0.95 * rate(best))!
  const cores = cpus().length
  const used = (seconds: number) => seconds / knee.seconds
  console.log(
    `\nknee: ${knee.label} (${knee.backends} connections at the primary) reaches 95% of the best saves/s (${
      fmt(rate(best))
    }/s at ${best.label}); there svc used ${fmt(used(knee.svcCpu), 2)} cores, its PostgreSQL backends ${
      fmt(used(knee.backendCpu), 2)
    }${
      knee.clusterCpu === undefined ? "" : ` (the whole cluster ${fmt(used(knee.clusterCpu), 2)})`
    } of this machine's ${cores}; the machine was ${fmt(100 * knee.busy)}% busy, ${fmt(100 * knee.iowait)}% iowait.`
  )
  console.log(
    knee.busy >= 0.9
      ? `  CPU-bound: the machine's cores ran out (svc, PostgreSQL, the load generator and anything else running share ${cores}); a larger pool only queues in PostgreSQL. Where svc runs apart from the database, the knee is where the primary's cores or its WAL syncs run out: run this there, with SVC_BENCH_REPLICAS to drive it.`
      : `  Not CPU-bound: the machine had cores left, so what stops the saves is in PostgreSQL (WAL syncs, locks) or in svc's single process.`
  )
}

const settings = async (client: pg.Client) => {
  const { rows: found } = await client.query<{ name: string; setting: string; unit: string | null }>(
    `SELECT name, setting, unit FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method',
       'commit_delay', 'commit_siblings', 'full_page_writes', 'wal_compression', 'shared_buffers', 'max_wal_size',
       'checkpoint_timeout', 'synchronous_standby_names', 'max_connections', 'track_wal_io_timing') ORDER BY name`
  )
  const version = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v
  return `PostgreSQL ${version}: ${
    found.map((s) => `${s.name}=${s.setting === "" ? "''" : s.setting}${s.unit ?? ""}`).join(", ")
  }`
}

export const run = async (): Promise<void> => {
  buildServerBundle()
  const cluster = PG_BIN === undefined ? undefined : await startThrowawayPg(PG_BIN)
  const url = cluster?.url ?? process.env.SVC_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  const schema = `svc_bench_capacity_${randomBytes(4).toString("hex")}`
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-capacity-"))
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const bench: Bench = { client, cluster, url, schema, dir }
  try {
    const configFile = join(dir, "migrate.json")
    await writeFile(configFile, JSON.stringify({ database: { dialect: "postgres", url, schema } }))
    const migrated = spawnSync(process.execPath, [SVC_BIN, "migrate", "--config", configFile], {
      cwd: ROOT,
      encoding: "utf8"
    })
    if (migrated.status !== 0) throw new Error(`svc migrate failed: ${migrated.stderr}${migrated.stdout}`)
    console.log(
      `${cluster === undefined ? "on the given cluster" : "on a cluster of the bench's own"}; ${await settings(
        client
      )}`
    )
    console.log(`machine: ${cpus().length} cores; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`)
    if (cluster === undefined) {
      const idle = await walNow(client)
      await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000))
      const other = await walSince(client, idle)
      console.log(
        `WAL of the cluster in an idle ${SECONDS} s before (other work on it, counted in the figures below too): ${
          fmt(other.lsnBytes)
        } bytes, ${fmt(other.records)} records, ${fmt(other.syncs)} syncs`
      )
    } else {
      await client.query("CHECKPOINT") // the schema's creation out of the way; none again in a run this short
    }

    const servers: Array<Svc> = []
    try {
      const pools = new Map<number, Svc>()
      for (const pool of POOLS) {
        const svc = await startSvc(bench, pool)
        servers.push(svc)
        pools.set(pool, svc)
      }
      const delayed: Array<readonly [number, Svc]> = []
      for (const delay of DELAYS) {
        const svc = await startDelayed(bench, delay)
        if (svc !== undefined) {
          servers.push(svc)
          delayed.push([delay, svc])
        }
      }
      const reader = await startSvc(bench, 10)
      servers.push(reader)
      const subject = await seed(reader.origins[0]!, 1)

      const plans: Array<Plan> = [
        ...POOLS.map((pool) => ({
          label: `${poolLabel(pool)}, ${pool * REPLICAS} clients`,
          svc: pools.get(pool)!,
          load: saves(pool * REPLICAS),
          counted: "saves" as const
        })),
        ...POOLS.map((pool) => ({
          label: `${poolLabel(pool)}, ${DEMAND} clients`,
          svc: pools.get(pool)!,
          load: saves(DEMAND),
          counted: "saves" as const
        })),
        ...delayed.map(([delay, svc]) => ({
          label: `${poolLabel(GROUP_POOL)}, ${GROUP} clients, commit_delay ${delay} µs`,
          svc,
          load: saves(GROUP),
          counted: "saves" as const
        })),
        {
          label: `GET /subjects/:id, 1 consent, ${poolLabel(10)}, 32 clients`,
          svc: reader,
          load: (svc: Svc, seconds: number) =>
            spread(svc, 32, (origin, connections) => measureReads(origin, [subject], seconds, undefined, connections)),
          counted: "reads" as const
        }
      ]
      const points = await measurePlans(bench, plans)
      const busy = points.slice(0, POOLS.length)
      const demand = points.slice(POOLS.length, 2 * POOLS.length)
      const grouped = points.slice(2 * POOLS.length, -1)
      const read = points.at(-1)!

      console.log(
        `\nPOST /subjects (new subject), ${SECONDS} s per point, ${ROUNDS} round(s); per save unless said:\n\n${HEADER}\n${DIVIDER}`
      )
      for (const point of busy) printPoint(point, "saves")
      console.log("| (plenty of demand) |")
      for (const point of demand) printPoint(point, "saves")
      console.log("| (group commit) |")
      for (const point of grouped) printPoint(point, "saves")
      printKnee(demand)
      console.log(`\nper read:\n\n${HEADER}\n${DIVIDER}`)
      printPoint(read, "reads")
    } finally {
      for (const svc of servers) for (const server of svc.servers) await stop(server)
    }
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined)
    await client.end()
    await cluster?.stop()
    await rm(dir, { recursive: true, force: true })
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`)
}

run().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
