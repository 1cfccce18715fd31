/**
 * GET /init throughput and latency on the real server against a bare node:http ceiling.
 *
 * Starts `svc serve` (SQLite, a realistic manifest, signing on) in a child process, and a bare
 * node:http server in another child that answers the very bytes /init answered (same headers).
 * autocannon drives both at 8 and 32 connections (~2.5 s each after a warm-up); the table shows
 * requests/s, p50/p99 latency, /init against the ceiling, and the server's peak RSS (VmHWM).
 * Targets: /init ≥ 25% of the ceiling, p99 < 5 ms at 32 connections, RSS < 200 MB.
 * Then init-geo.ts: /init located by the client IP against an edge header, and the IP table's cost.
 *
 * `SVC_BENCH_BASELINE_BIN=<another build's packages/server/bin/svc.js>` measures that build too, with
 * the same config on its own database, alternated with this one (`SVC_BENCH_ROUNDS` times, means),
 * and prints svc ÷ baseline in requests/s and in CPU time per request.
 *
 *   npx tsx --conditions=@svc/source scripts/bench/init.ts        (or `npm run bench -- init`)
 */
import autocannon from "autocannon"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { run as runLocation } from "./init-geo.js"
import { BASELINE_BIN, cpuSeconds, freePort, peakRssMb, ROUNDS, startNode, stop, SVC_BIN } from "./processes.js"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"

const DURATION_S = Number(process.env.SVC_BENCH_SECONDS ?? 2.5)
const CONNECTIONS = [8, 32]
const PATH = "/init?v=3.1.0&contract=1&journey=jrn_bench"
const HEADERS = { "accept-language": "de-DE,de;q=0.9,en;q=0.8", "cf-ipcountry": "DE", "user-agent": "bench/1.0" }

const all = ["measurement", "marketing", "functionality", "experience"]
const EEA = ["AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU",
  "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE"]

const config = (dir: string) => ({
  database: { dialect: "sqlite", url: join(dir, "svc.db") },
  observability: { requests: "none" },
  policySnapshot: { signingKey: "bench-policy-snapshot-signing-key-0123456789" },
  manifest: {
    appName: "bench",
    policyRules: [
      { id: "us-ca", match: { regions: ["US-CA"] }, model: "opt-out", categories: all, gpcDenies: ["marketing"] },
      { id: "eea", match: { countries: EEA }, model: "opt-in", categories: all, validityDays: 180 },
      { id: "unknown", match: { fallback: true }, model: "opt-in", categories: all },
      { id: "rest", match: { default: true }, model: "opt-out", categories: all }
    ],
    vendors: [
      { id: "analytics", name: "Example Analytics", category: "measurement" },
      { id: "ads", name: "Example Ads", category: "marketing" }
    ]
  }
})

interface Measured {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
  /** The server's CPU time per answered request, in µs (`NaN` when its pid is not given). */
  readonly cpuUs: number
}

/** The mean of each figure over rounds (errors summed). */
const mean = (runs: ReadonlyArray<Measured>): Measured => {
  const avg = (pick: (m: Measured) => number) => runs.reduce((sum, m) => sum + pick(m), 0) / runs.length
  return {
    rps: avg((m) => m.rps),
    p50: avg((m) => m.p50),
    p99: avg((m) => m.p99),
    errors: runs.reduce((sum, m) => sum + m.errors, 0),
    cpuUs: avg((m) => m.cpuUs)
  }
}

const measure = async (url: string, connections: number, seconds: number, pid?: number): Promise<Measured> => {
  const cpuBefore = pid === undefined ? Number.NaN : await cpuSeconds(pid)
  const result = await autocannon({ url, connections, duration: seconds, headers: HEADERS, pipelining: 1 })
  const cpu = pid === undefined ? Number.NaN : await cpuSeconds(pid) - cpuBefore
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    cpuUs: (cpu * 1e6) / result.requests.total
  }
}

const ceilingSource = `
import { createServer } from "node:http"
const { body, headers } = JSON.parse(process.env.CEILING_RESPONSE)
const bytes = Buffer.from(body)
createServer((req, res) => {
  res.writeHead(200, { ...headers, "content-length": bytes.length })
  res.end(bytes)
}).listen(Number(process.env.CEILING_PORT), "127.0.0.1", () => console.log("ceiling ready"))
`

export const run = async (): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-init-"))
  const children: Array<ChildProcess> = []
  try {
    /** `svc serve` of the build `bin` on its own database in `folder`; the /init URL. */
    const serve = async (bin: string, folder: string) => {
      const configFile = join(folder, "svc.config.json")
      await writeFile(configFile, JSON.stringify(config(folder)))
      const port = await freePort()
      const child = await startNode(
        [bin, "serve", "--config", configFile, "--port", String(port), "--host", "127.0.0.1"],
        /listening on/
      )
      children.push(child)
      return { child, url: `http://127.0.0.1:${port}${PATH}` }
    }
    const { child: svc, url: svcUrl } = await serve(SVC_BIN, dir)
    const baseline = BASELINE_BIN === undefined
      ? undefined
      : await serve(BASELINE_BIN, await mkdtemp(join(dir, "baseline-")))

    const sample = await fetch(svcUrl, { headers: HEADERS })
    const body = await sample.text()
    const parsed = JSON.parse(body) as {
      policyResolution: { status: string; policyId: string }
      policySnapshotToken?: string
    }
    if (sample.status !== 200 || parsed.policyResolution.status !== "matched")
      throw new Error(`unexpected /init answer: ${sample.status} ${body.slice(0, 200)}`)
    const headers: Record<string, string> = {}
    for (const name of ["content-type", "cache-control", "vary", "x-request-id"]) {
      const value = sample.headers.get(name)
      if (value !== null) headers[name] = value
    }

    const ceilingPort = await freePort()
    const ceilingFile = join(dir, "ceiling.mjs")
    await writeFile(ceilingFile, ceilingSource)
    const ceiling = await new Promise<ChildProcess>((resolve, reject) => {
      const child = spawn(process.execPath, [ceilingFile], {
        stdio: ["ignore", "pipe", "inherit"],
        env: { ...process.env, CEILING_PORT: String(ceilingPort), CEILING_RESPONSE: JSON.stringify({ body, headers }) }
      })
      child.stdout!.once("data", () => {
        child.stdout!.resume()
        resolve(child)
      })
      child.once("exit", (code) => reject(new Error(`ceiling exited with ${code}`)))
    })
    children.push(ceiling)
    const ceilingUrl = `http://127.0.0.1:${ceilingPort}${PATH}`

    console.log(
      `GET ${PATH} (${HEADERS["cf-ipcountry"]}, ${
        HEADERS["accept-language"]
      }) → rule ${parsed.policyResolution.policyId}, ${body.length} bytes, token ${
        parsed.policySnapshotToken === undefined ? "absent" : "signed"
      }`
    )
    // Warm-up: JIT the servers before measuring.
    await measure(svcUrl, 8, 1)
    if (baseline !== undefined) await measure(baseline.url, 8, 1)
    await measure(ceilingUrl, 8, 0.5)

    const rows: Array<{ connections: number; svc: Measured; bare: Measured; baseline: Measured | undefined }> = []
    for (const connections of CONNECTIONS) {
      const runs: { svc: Array<Measured>; bare: Array<Measured>; baseline: Array<Measured> } = {
        svc: [],
        bare: [],
        baseline: []
      }
      for (let round = 0; round < ROUNDS; round++) {
        runs.svc.push(await measure(svcUrl, connections, DURATION_S, svc.pid))
        if (baseline !== undefined)
          runs.baseline.push(await measure(baseline.url, connections, DURATION_S, baseline.child.pid))
        runs.bare.push(await measure(ceilingUrl, connections, DURATION_S, ceiling.pid))
      }
      rows.push({
        connections,
        svc: mean(runs.svc),
        bare: mean(runs.bare),
        baseline: runs.baseline.length === 0 ? undefined : mean(runs.baseline)
      })
    }
    const rss = await peakRssMb(svc.pid!)

    const fmt = (n: number, digits = 0) =>
      n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    console.log("")
    console.log(
      "connections |  /init req/s | p50 ms | p99 ms | errors | CPU µs/req || ceiling req/s | p50 ms | p99 ms | CPU µs/req || /init ÷ ceiling"
    )
    for (const { connections, svc: s, bare: b } of rows) {
      console.log(
        `${String(connections).padStart(11)} | ${fmt(s.rps).padStart(12)} | ${fmt(s.p50, 2).padStart(6)} | ${
          fmt(s.p99, 2).padStart(6)
        } | ${String(s.errors).padStart(6)} | ${fmt(s.cpuUs, 1).padStart(10)} || ${fmt(b.rps).padStart(13)} | ${
          fmt(b.p50, 2).padStart(6)
        } | ${fmt(b.p99, 2).padStart(6)} | ${fmt(b.cpuUs, 1).padStart(10)} || ${
          fmt((100 * s.rps) / b.rps, 1).padStart(6)
        }%`
      )
    }
    for (const { connections, svc: s, baseline: b } of rows) {
      if (b === undefined) continue
      console.log(
        `baseline, ${connections} connections: ${fmt(b.rps)} req/s, ${fmt(b.cpuUs, 1)} µs/req; svc ÷ baseline: ${
          fmt((100 * s.rps) / b.rps, 1)
        }% of its req/s, ${fmt((100 * s.cpuUs) / b.cpuUs, 1)}% of its CPU per request`
      )
    }
    console.log(`svc peak RSS (VmHWM): ${fmt(rss, 1)} MB`)
    const at32 = rows.find((r) => r.connections === 32)!
    const ratio = Math.min(...rows.map((r) => r.svc.rps / r.bare.rps))
    const verdict = (ok: boolean) => (ok ? "met" : "MISSED")
    console.log(
      `targets: /init ≥ 25% of ceiling: ${verdict(ratio >= 0.25)} (${
        fmt(100 * ratio, 1)
      }%); p99 < 5 ms at 32 connections: ${verdict(at32.svc.p99 < 5)} (${fmt(at32.svc.p99, 2)} ms); RSS < 200 MB: ${
        verdict(rss < 200)
      } (${fmt(rss, 1)} MB)`
    )
  } finally {
    for (const child of children.reverse()) await stop(child)
    await rm(dir, { recursive: true, force: true })
  }
  await runLocation()
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
