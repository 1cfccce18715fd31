/**
 * The cost of telemetry on the request path: the same server with `telemetry` off, with the
 * Prometheus endpoint (metrics recorded), and with OTLP (metrics plus a span per request and per SQL
 * statement, exported to a local sink collector every 5 s).
 *
 * Three `svc serve` children (SQLite, one stored subject) and a sink child that answers every OTLP
 * POST with 200. autocannon drives `GET /subjects/:id` (API key; one SQL read) and `GET /manifest`
 * (no SQL) at 16 connections, the modes interleaved over two rounds so drift on a shared machine
 * hits each alike. Prints req/s and p50/p99 per mode and the change against `off`.
 *
 *   npx tsx --conditions=@svc/source scripts/bench/telemetry.ts   (or `npm run bench -- telemetry`)
 */
import autocannon from "autocannon"
import type { ChildProcess } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { freePort, startNode, stop, SVC_BIN } from "./processes.js"

const DURATION_S = Number(process.env.SVC_BENCH_SECONDS ?? 2.5)
const CONNECTIONS = 16
const API_KEY = "bench-telemetry-key-0123456789abcdef"
const MODES = ["off", "prometheus", "otlp"] as const
type Mode = (typeof MODES)[number]

const sinkSource = `
import { createServer } from "node:http"
createServer((req, res) => { req.resume(); req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}")) })
  .listen(Number(process.env.SINK_PORT), "127.0.0.1", () => console.log("sink ready"))
`

const configFor = (dir: string, mode: Mode, sinkUrl: string) => ({
  database: { dialect: "sqlite", url: join(dir, `${mode}.db`) },
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
}

const measure = async (url: string, seconds: number): Promise<Measured> => {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${API_KEY}` }
  })
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx
  }
}

export const run = async (): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-telemetry-"))
  const children: Array<ChildProcess> = []
  try {
    const sinkPort = await freePort()
    const sinkFile = join(dir, "sink.mjs")
    await writeFile(sinkFile, sinkSource)
    children.push(await startNode([sinkFile], /sink ready/, { SINK_PORT: String(sinkPort) }))
    const servers = new Map<Mode, { url: string; subjectPath: string }>()
    for (const mode of MODES) {
      const file = join(dir, `${mode}.json`)
      await writeFile(file, JSON.stringify(configFor(dir, mode, `http://127.0.0.1:${sinkPort}`)))
      const port = await freePort()
      children.push(
        await startNode(
          [SVC_BIN, "serve", "--config", file, "--port", String(port), "--host", "127.0.0.1"],
          /listening on/
        )
      )
      const url = `http://127.0.0.1:${port}`
      const saved = await fetch(`${url}/subjects`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          subjectId: `sub_bench${mode}0000000000000`,
          type: "cookie_banner",
          domain: "example.com",
          givenAt: Date.now(),
          preferences: { necessary: true, measurement: true, marketing: false, functionality: false, experience: false }
        })
      })
      if (saved.status !== 200) throw new Error(`${mode}: save answered ${saved.status} ${await saved.text()}`)
      const { subjectId } = (await saved.json()) as { subjectId: string }
      servers.set(mode, { url, subjectPath: `/subjects/${subjectId}` })
    }

    const results = new Map<string, Array<Measured>>()
    for (const path of ["subject", "manifest"] as const) {
      for (const mode of MODES) await measure(`${servers.get(mode)!.url}/manifest`, 0.5) // warm-up
      for (let round = 0; round < 2; round++) {
        for (const mode of MODES) {
          const server = servers.get(mode)!
          const m = await measure(server.url + (path === "subject" ? server.subjectPath : "/manifest"), DURATION_S)
          results.set(`${path}|${mode}`, [...(results.get(`${path}|${mode}`) ?? []), m])
        }
      }
    }

    const fmt = (n: number, digits = 0) =>
      n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    const mean = (runs: ReadonlyArray<Measured>, key: keyof Measured) =>
      runs.reduce((a, r) => a + r[key], 0) / runs.length
    console.log(`${CONNECTIONS} connections, ${DURATION_S} s × 2 rounds per cell, modes interleaved`)
    console.log("route                 | mode       |   req/s | p50 ms | p99 ms | errors | req/s vs off")
    for (const path of ["subject", "manifest"] as const) {
      const off = mean(results.get(`${path}|off`)!, "rps")
      for (const mode of MODES) {
        const runs = results.get(`${path}|${mode}`)!
        const rps = mean(runs, "rps")
        console.log(
          `${(path === "subject" ? "GET /subjects/:id" : "GET /manifest").padEnd(21)} | ${mode.padEnd(10)} | ${
            fmt(rps).padStart(7)
          } | ${fmt(mean(runs, "p50"), 2).padStart(6)} | ${fmt(mean(runs, "p99"), 2).padStart(6)} | ${
            String(runs.reduce((a, r) => a + r.errors, 0)).padStart(6)
          } | ${mode === "off" ? "" : `${fmt((100 * (rps - off)) / off, 1)}%`}`
        )
      }
    }
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
