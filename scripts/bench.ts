/**
 * `npm run bench [-- name ...]`: runs each benchmark in its own process, one after another, so
 * they never compete for the machine's two cores. Names: init, subjects, summary, client, export,
 * export-proofs, events, telemetry, insight, verify,
 * scale (PostgreSQL, 20M consents; long, so run only when named),
 * capacity (PostgreSQL pool sizes, WAL per save, group commit; ~2 minutes, only when named).
 * Numbers are printed, never asserted: speed targets live here, not in the test suite.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const benches: Record<string, string> = {
  init: "bench/init.ts",
  subjects: "bench/subjects.ts",
  summary: "bench/summary.ts",
  client: "bench/client.ts",
  export: "bench/export.ts",
  "export-proofs": "bench/export-proofs.ts",
  events: "bench/events.ts",
  telemetry: "bench/telemetry.ts",
  insight: "bench/insight.ts",
  verify: "bench/verify.ts",
  scale: "bench/scale.ts",
  capacity: "bench/capacity.ts"
}

/** Benchmarks too long for the full run: only run when named. */
const onlyWhenNamed = new Set(["scale", "capacity"])

const requested = process.argv.slice(2)
const unknown = requested.filter((name) => !(name in benches))
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; choose from ${Object.keys(benches).join(", ")}`)
  process.exit(2)
}

// Each benchmark's `svc serve` processes note their idle and peak memory here (scripts/bench/processes.ts).
const memoryDir = mkdtempSync(join(tmpdir(), "svc-bench-memory-"))
const memoryFile = join(memoryDir, "memory.jsonl")

let failed = 0
for (const name of requested.length > 0 ? requested : Object.keys(benches).filter((n) => !onlyWhenNamed.has(n))) {
  const file = fileURLToPath(new URL(benches[name]!, import.meta.url))
  if (!existsSync(file)) {
    console.log(`\n== ${name}: not present (${benches[name]})`)
    continue
  }
  console.log(`\n== ${name}`)
  const result = spawnSync(process.execPath, ["--conditions=@svc/source", "--import", "tsx", file], {
    stdio: "inherit",
    env: { ...process.env, SVC_BENCH_MEMORY_FILE: memoryFile }
  })
  if (result.status !== 0) {
    failed++
    console.error(`== ${name} failed (exit ${result.status})`)
  }
}
const servers = existsSync(memoryFile)
  ? readFileSync(memoryFile, "utf8").trim().split("\n").map((line) =>
    JSON.parse(line) as { bench: string; idle: number; peak: number }
  )
  : []
rmSync(memoryDir, { recursive: true, force: true })
if (servers.length > 0) {
  const idle = servers.reduce((a, b) => (b.idle > a.idle ? b : a))
  const peak = servers.reduce((a, b) => (b.peak > a.peak ? b : a))
  console.log(
    `\n== memory of svc serve over ${servers.length} server(s): idle after start at most ${
      idle.idle.toFixed(0)
    } MB (${idle.bench}; target ≤ 90), ` +
      `peak ${peak.peak.toFixed(0)} MB (${peak.bench}; target ≤ 160)`
  )
}
process.exit(failed === 0 ? 0 : 1)
