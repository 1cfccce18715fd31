/** Child processes for the benchmarks: free ports, start-until-ready, stop, peak memory. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { appendFile, readFile } from "node:fs/promises"
import { createServer } from "node:net"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

export const ROOT = fileURLToPath(new URL("../..", import.meta.url))

/**
 * The `svc` command measured: this repository's, or another build's (`SVC_BENCH_SVC_BIN`, e.g. a
 * worktree of an older commit) to compare the two alternately in the same minutes.
 */
export const SVC_BIN = resolve(process.env.SVC_BENCH_SVC_BIN ?? join(ROOT, "packages/server/bin/svc.js"))

/**
 * Another build measured beside this one in the same run (`SVC_BENCH_BASELINE_BIN`, its
 * `packages/server/bin/svc.js`), where a bench supports it (subjects, init).
 */
export const BASELINE_BIN = process.env.SVC_BENCH_BASELINE_BIN === undefined
  ? undefined
  : resolve(process.env.SVC_BENCH_BASELINE_BIN)

/** How many times a bench that alternates servers measures each (`SVC_BENCH_ROUNDS`, default 1). */
export const ROUNDS = Number(process.env.SVC_BENCH_ROUNDS ?? 1)

/** A port nothing listens on right now (127.0.0.1). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/**
 * `svc serve` processes started here, and reference servers given a name (the floor, the
 * ceiling), with their resident memory once idle after start (MB).
 */
const servers = new WeakMap<
  ChildProcess,
  { readonly label: string; readonly idle: number; readonly reference: string | undefined }
>()
const isSvcServe = (args: ReadonlyArray<string>) =>
  args.some((arg) => arg.endsWith("bin/svc.js")) && args.includes("serve")

/**
 * Runs `node ...args` and resolves once its output matches `ready`. For `svc serve`, and for a
 * server given a `reference` name (the floor, compared with svc's memory), it then waits a second
 * and notes the process's idle memory; `stop` reports it with the peak (see `stop`).
 */
export const startNode = async (
  args: ReadonlyArray<string>,
  ready: RegExp,
  env: Record<string, string> = {},
  reference?: string
) => {
  const child = await startUntilReady(args, ready, env)
  if (isSvcServe(args) || reference !== undefined) {
    await new Promise((r) => setTimeout(r, 1_000))
    servers.set(child, {
      label: process.argv[1]?.replace(/^.*\/bench\//, "").replace(/\.ts$/, "") ?? "bench",
      idle: await rssMb(child.pid!),
      reference
    })
  }
  return child
}

/**
 * How a process is started: `svc` is run as a user runs it, as an executable, so the Node flags on
 * its first line apply (`bin/svc.js`); Node flags given before it go through `NODE_OPTIONS`.
 * Anything else is a script for this Node.
 */
const commandOf = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const bin = args.findIndex((arg) => arg.endsWith("bin/svc.js"))
  if (bin === -1) return { command: process.execPath, args, env }
  const nodeOptions = [process.env.NODE_OPTIONS, ...args.slice(0, bin)].filter(Boolean).join(" ")
  return {
    command: args[bin]!,
    args: args.slice(bin + 1),
    env: nodeOptions === "" ? env : { ...env, NODE_OPTIONS: nodeOptions }
  }
}

const startUntilReady = (args: ReadonlyArray<string>, ready: RegExp, extraEnv: Record<string, string>) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const { command, args: commandArgs, env } = commandOf(args, extraEnv)
    const child = spawn(command, commandArgs, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_ENV: "production", ...env }
    })
    let output = ""
    const timer = setTimeout(() => reject(new Error(`not ready after 30 s:\n${output}`)), 30_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (ready.test(output)) {
        clearTimeout(timer)
        child.stdout!.off("data", onData)
        child.stdout!.resume()
        child.stderr!.resume()
        resolve(child)
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before it was ready:\n${output}`))
    })
  })

/**
 * SIGTERM, then SIGKILL after 5 s. For `svc serve`, first prints its memory: idle after start and
 * peak (VmHWM) over everything the benchmark sent it, and appends them to
 * `SVC_BENCH_MEMORY_FILE` (set by `npm run bench`, which reports the highest over all benchmarks).
 * Targets (issue #26): idle ≤ 90 MB, peak ≤ 160 MB. A reference server's are printed only.
 */
export const stop = async (child: ChildProcess) => {
  const server = servers.get(child)
  if (server !== undefined && child.exitCode === null) {
    const peak = await peakRssMb(child.pid!)
    console.log(
      `memory: ${server.reference ?? "svc serve"} (${server.label}) ${
        server.idle.toFixed(0)
      } MB idle after start, peak ${peak.toFixed(0)} MB${
        server.reference === undefined ? " (targets: idle ≤ 90, peak ≤ 160)" : ""
      }`
    )
    const file = process.env.SVC_BENCH_MEMORY_FILE
    if (file !== undefined && server.reference === undefined)
      await appendFile(file, `${JSON.stringify({ bench: server.label, idle: server.idle, peak })}\n`)
  }
  return stopProcess(child)
}

const stopProcess = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
    setTimeout(() => child.kill("SIGKILL"), 5_000).unref()
  })

const statusMb = async (pid: number, field: "VmHWM" | "VmRSS") => {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "")
  const kb = new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1]
  return kb === undefined ? Number.NaN : Number(kb) / 1024
}

/** Peak resident memory of a process (VmHWM), in MB. */
export const peakRssMb = (pid: number) => statusMb(pid, "VmHWM")

/** Resident memory of a process now (VmRSS), in MB. */
export const rssMb = (pid: number) => statusMb(pid, "VmRSS")

/**
 * CPU time a process has used so far (user + system, from /proc), in seconds. Divided by the
 * requests served in between, it compares builds on a busy machine, where requests/s swing with
 * whatever else runs: the work per request does not.
 */
export const cpuSeconds = async (pid: number) => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "")
  // Fields after the command name (which may hold spaces) start at the state, field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime: fields 14 and 15, in ticks of 10 ms
}

/** Rebuilds `svc serve`'s bundle (it runs the bundled build when present), so the figures are of this source. */
export const buildServerBundle = () => {
  const build = spawnSync(process.execPath, ["build.mjs"], { cwd: join(ROOT, "packages/server"), encoding: "utf8" })
  if (build.status !== 0) throw new Error(`building the server bundle failed: ${build.stderr}`)
}
