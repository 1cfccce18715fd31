/**
 * The cost of telemetry on the request path: the same server with `telemetry` off, with the
 * Prometheus endpoint (metrics recorded), and with OTLP (metrics plus a span per request and per SQL
 * statement, exported to a local sink collector every 5 s).
 *
 * Three `svc serve` children (SQLite, one stored subject) and a sink child that answers every OTLP
 * POST with 200. autocannon drives `GET /subjects/:id` (API key; one SQL read) and `GET /manifest`
 * (no SQL) at 16 connections, the modes interleaved over two rounds so drift on a shared machine
 * hits each alike. Prints req/s, p50/p99 and the server's CPU time per request per mode, and the
 * change against `off`.
 *
 * `SVC_BENCH_BASELINE_BIN=<another build's packages/server/bin/svc.js>` starts that build's three
 * servers too and measures them in the same rounds, right after this build's of the same mode, then
 * prints this build's CPU per request ÷ the baseline's (median over rounds).
 * `SVC_BENCH_ROUNDS=n` sets the rounds (default 2).
 *
 *   npx tsx --conditions=@svc/source scripts/bench/telemetry.ts   (or `npm run bench -- telemetry`)
 */
import autocannon from "autocannon"
import type { ChildProcess } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { BASELINE_BIN, cpuSeconds, freePort, startNode, stop, SVC_BIN } from "./processes.js"

const DURATION_S = Number(process.env.SVC_BENCH_SECONDS ?? 2.5)
const CONNECTIONS = 16
const API_KEY = "bench-telemetry-key-0123456789abcdef"
const MODES = ["off", "prometheus", "otlp"] as const
type Mode = (typeof MODES)[number]
const ROUNDS = Number(process.env.SVC_BENCH_ROUNDS ?? 2)
/** This build, and the one of `SVC_BENCH_BASELINE_BIN` when given. */
const BUILDS = [
  { name: "svc", bin: SVC_BIN },
  ...(BASELINE_BIN === undefined ? [] : [{ name: "baseline", bin: BASELINE_BIN }])
] as const
type Build = (typeof BUILDS)[number]["name"]

const sinkSource = `
import { createServer } from "node:http"
createServer((req, res) => { req.resume(); req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}")) })
  .listen(Number(process.env.SINK_PORT), "127.0.0.1", () => console.log("sink ready"))
`

const configFor = (dir: string, build: Build, mode: Mode, sinkUrl: string) => ({
  database: { dialect: "sqlite", url: join(dir, `${build}-${mode}.db`) },
  apiKeys: [API_KEY],
  observability: { requests: "none" },
  manifest: {
    policyRules: [{ id: "rest", match: { default: true }, model: "opt-out", categories: ["measurement", "marketing"] }]
  },
  ...(mode === "off" ? {} : { telemetry: mode === "prometheus" ? { prometheus: {} } : { otlp: { url: sinkUrl } } })
})

interface Measured {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
  /** The server's CPU time per request, in µs. */
  readonly cpuUs: number
}

const measure = async (url: string, seconds: number, pid: number): Promise<Measured> => {
  const cpuBefore = await cpuSeconds(pid)
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${API_KEY}` }
  })
  const cpu = await cpuSeconds(pid) - cpuBefore
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    cpuUs: (cpu * 1e6) / result.requests.total
  }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export const run = async (): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-telemetry-"))
  const children: Array<ChildProcess> = []
  try {
    const sinkPort = await freePort()
    const sinkFile = join(dir, "sink.mjs")
    await writeFile(sinkFile, sinkSource)
    children.push(await startNode([sinkFile], /sink ready/, { SINK_PORT: String(sinkPort) }))
    const servers = new Map<string, { url: string; subjectPath: string; pid: number }>()
    for (const build of BUILDS) {
      for (const mode of MODES) {
        const file = join(dir, `${build.name}-${mode}.json`)
        await writeFile(file, JSON.stringify(configFor(dir, build.name, mode, `http://127.0.0.1:${sinkPort}`)))
        const port = await freePort()
        const child = await startNode(
          [build.bin, "serve", "--config", file, "--port", String(port), "--host", "127.0.0.1"],
          /listening on/
        )
        children.push(child)
        const url = `http://127.0.0.1:${port}`
        const saved = await fetch(`${url}/subjects`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            subjectId: `sub_bench${mode}0000000000000`,
            type: "cookie_banner",
            domain: "example.com",
            givenAt: Date.now(),
            preferences: {
              necessary: true,
              measurement: true,
              marketing: false,
              functionality: false,
              experience: false
            }
          })
        })
        if (saved.status !== 200) throw new Error(`${mode}: save answered ${saved.status} ${await saved.text()}`)
        const { subjectId } = (await saved.json()) as { subjectId: string }
        servers.set(`${build.name}|${mode}`, { url, subjectPath: `/subjects/${subjectId}`, pid: child.pid! })
      }
    }

    const results = new Map<string, Array<Measured>>()
    for (const path of ["subject", "manifest"] as const) {
      for (const server of servers.values()) await measure(`${server.url}/manifest`, 0.5, server.pid) // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        for (const mode of MODES) {
          for (const build of BUILDS) {
            const key = `${build.name}|${mode}`
            const server = servers.get(key)!
            const url = server.url + (path === "subject" ? server.subjectPath : "/manifest")
            const m = await measure(url, DURATION_S, server.pid)
            results.set(`${path}|${key}`, [...(results.get(`${path}|${key}`) ?? []), m])
          }
        }
      }
    }

    const fmt = (n: number, digits = 0) =>
      n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    const mean = (runs: ReadonlyArray<Measured>, key: keyof Measured) =>
      runs.reduce((a, r) => a + r[key], 0) / runs.length
    const route = (path: "subject" | "manifest") => (path === "subject" ? "GET /subjects/:id" : "GET /manifest")
    console.log(
      `${CONNECTIONS} connections, ${DURATION_S} s × ${ROUNDS} rounds per cell, modes${
        BUILDS.length > 1 ? " and builds" : ""
      } interleaved`
    )
    console.log(
      "build    | route                 | mode       |   req/s | p50 ms | p99 ms | errors | CPU µs/req | req/s vs off"
    )
    for (const build of BUILDS) {
      for (const path of ["subject", "manifest"] as const) {
        const off = mean(results.get(`${path}|${build.name}|off`)!, "rps")
        for (const mode of MODES) {
          const runs = results.get(`${path}|${build.name}|${mode}`)!
          const rps = mean(runs, "rps")
          console.log(
            `${build.name.padEnd(8)} | ${route(path).padEnd(21)} | ${mode.padEnd(10)} | ${fmt(rps).padStart(7)} | ${
              fmt(mean(runs, "p50"), 2).padStart(6)
            } | ${fmt(mean(runs, "p99"), 2).padStart(6)} | ${
              String(runs.reduce((a, r) => a + r.errors, 0)).padStart(6)
            } | ${fmt(mean(runs, "cpuUs"), 1).padStart(10)} | ${
              mode === "off" ? "" : `${fmt((100 * (rps - off)) / off, 1)}%`
            }`
          )
        }
      }
    }
    if (BASELINE_BIN !== undefined) {
      console.log(`\nCPU per request, svc ÷ baseline (${BASELINE_BIN}), median of ${ROUNDS} round ratios`)
      for (const path of ["subject", "manifest"] as const) {
        for (const mode of MODES) {
          const svc = results.get(`${path}|svc|${mode}`)!
          const baseline = results.get(`${path}|baseline|${mode}`)!
          const ratio = median(svc.map((m, i) => m.cpuUs / baseline[i]!.cpuUs))
          console.log(
            `${route(path).padEnd(21)} | ${mode.padEnd(10)} | ${fmt(mean(svc, "cpuUs"), 1)} against ${
              fmt(mean(baseline, "cpuUs"), 1)
            } µs | ${fmt(100 * ratio, 1)}%`
          )
        }
      }
    }
    console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`)
  } finally {
    for (const child of children.reverse()) await stop(child)
    await rm(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
