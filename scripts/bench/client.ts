/**
 * Client overhead per call: `client.status()` against plain `fetch` + `res.json()` on the same
 * local node:http endpoint answering a /status-shaped body. Prints p50/p90/p99 of each and the
 * p50 overhead (target, issue 12: at most 30%). The derived `HttpApiClient` (what `makeSvcApiClient`
 * gives Effect programs; `createSvcClient` decodes with the same contract without it) is measured
 * too, for comparison. Bounded: a few thousand calls per side, rounds interleaved so drift (JIT,
 * GC, sockets) hits every side alike.
 *
 * `SVC_BENCH_BASELINE_BIN=<another build's packages/server/bin/svc.js>` adds that build's
 * `client.status()` (its `packages/client/dist`) as a fourth side, and prints the CPU time per call
 * of both builds' clients (this process's, fetch and decoding included) and their ratio, median
 * over rounds.
 *
 *   npx tsx --conditions=@svc/source scripts/bench/client.ts [callsPerSide]
 */
import { FetchHttpClient, HttpApiClient, HttpClient } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { createSvcClient } from "@svc/client"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { BASELINE_BIN } from "./processes.js"

const callsPerSide = Number(process.argv[2] ?? 3000)
const rounds = 10
const warmup = 300

const body = JSON.stringify({
  status: "ok",
  version: "3.0.0-bench",
  timestamp: "2026-01-31T10:00:00.000Z",
  client: { ip: "127.0.0.1", userAgent: "node", acceptLanguage: null, country: null, region: null }
})
// The endpoint runs in its own process, as a backend would: its work must not share the
// client's event loop, or every client-side microsecond would also delay the server.
const serverSource = `
  const body = ${JSON.stringify(body)}
  require("node:http").createServer((_, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    res.end(body)
  }).listen(0, "127.0.0.1", function () { process.stdout.write(String(this.address().port) + "\\n") })`
const child = spawn(process.execPath, ["-e", serverSource], { stdio: ["ignore", "pipe", "inherit"] })
const port = await new Promise<number>((resolve) => child.stdout.once("data", (d) => resolve(Number(String(d).trim()))))
const server = { close: () => child.kill() }
const base = `http://127.0.0.1:${port}`

const client = createSvcClient({ baseUrl: base })
const plain = async () => {
  const res = await fetch(`${base}/status`, { headers: { accept: "application/json" } })
  await res.json()
}
const derived = Effect.runSync(
  HttpApiClient.make(SvcApi, { baseUrl: base, transformClient: HttpClient.withTracerDisabledWhen(() => true) }).pipe(
    Effect.provide(FetchHttpClient.layer)
  )
)
const viaDerived = () => Effect.runPromise(derived.status.status()).then(() => undefined)
const viaClient = async () => {
  const result = await client.status()
  if (!result.ok) throw result.error
}
const baselineModule: typeof import("@svc/client") | undefined = BASELINE_BIN === undefined
  ? undefined
  : await import(pathToFileURL(join(dirname(BASELINE_BIN), "../../client/dist/src/index.js")).href)
const baselineClient = baselineModule?.createSvcClient({ baseUrl: base })
const viaBaseline = async () => {
  const result = await baselineClient!.status()
  if (!result.ok) throw result.error
}

/** Times `n` calls into `into`; returns this process's CPU time per call over them, in µs. */
const time = async (fn: () => Promise<void>, n: number, into: Array<number>) => {
  const cpu = process.cpuUsage()
  for (let i = 0; i < n; i++) {
    const started = performance.now()
    await fn()
    into.push(performance.now() - started)
  }
  const used = process.cpuUsage(cpu)
  return (used.user + used.system) / n
}

const quantile = (samples: Array<number>, q: number) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

await time(plain, warmup, [])
await time(viaDerived, warmup, [])
await time(viaClient, warmup, [])
if (baselineClient !== undefined) await time(viaBaseline, warmup, [])
const fetchSamples: Array<number> = []
const derivedSamples: Array<number> = []
const clientSamples: Array<number> = []
const baselineSamples: Array<number> = []
const cpuRatios: Array<number> = []
const cpuPerCall = { client: 0, baseline: 0 }
const perRound = Math.ceil(callsPerSide / rounds)
for (let round = 0; round < rounds; round++) {
  await time(plain, perRound, fetchSamples)
  await time(viaDerived, perRound, derivedSamples)
  const clientCpu = await time(viaClient, perRound, clientSamples)
  if (baselineClient !== undefined) {
    const baselineCpu = await time(viaBaseline, perRound, baselineSamples)
    cpuRatios.push(clientCpu / baselineCpu)
    cpuPerCall.client += clientCpu / rounds
    cpuPerCall.baseline += baselineCpu / rounds
  }
}
server.close()

const row = (name: string, samples: Array<number>) =>
  `${name.padEnd(15)} p50 ${quantile(samples, 0.5).toFixed(3)} ms   p90 ${quantile(samples, 0.9).toFixed(3)} ms   p99 ${
    quantile(samples, 0.99).toFixed(3)
  } ms   (${samples.length} calls)`
const p50Fetch = quantile(fetchSamples, 0.5)
const p50Client = quantile(clientSamples, 0.5)
const overhead = (p50Client / p50Fetch - 1) * 100
console.log(row("plain fetch", fetchSamples))
console.log(row("HttpApiClient", derivedSamples))
console.log(row("client.status", clientSamples))
console.log(
  `p50 ratio ${(p50Client / p50Fetch).toFixed(3)}  overhead ${overhead.toFixed(1)}%  (${
    (p50Client - p50Fetch).toFixed(3)
  } ms per call)  target <= 30%: ${overhead <= 30 ? "met" : "NOT met"}`
)
if (baselineClient !== undefined) {
  console.log(row("baseline client", baselineSamples))
  const ratio = cpuRatios.sort((a, b) => a - b)[Math.floor(cpuRatios.length / 2)]!
  console.log(
    `CPU per client.status() call: ${cpuPerCall.client.toFixed(1)} µs against ${
      cpuPerCall.baseline.toFixed(1)
    } µs for the baseline (${BASELINE_BIN}); median of ${rounds} round ratios ${(100 * ratio).toFixed(1)}%`
  )
}
