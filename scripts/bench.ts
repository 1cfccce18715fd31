/**
 * `npm run bench [-- name ...]`: runs each benchmark in its own process, one after another, so
 * they never compete for the machine's two cores. Names: init, subjects, summary, client, export, events, telemetry, insight.
 * Numbers are printed, never asserted: speed targets live here, not in the test suite.
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const benches: Record<string, string> = {
  init: "bench/init.ts",
  subjects: "bench/subjects.ts",
  summary: "bench/summary.ts",
  client: "bench/client.ts",
  export: "bench/export.ts",
  events: "bench/events.ts",
  telemetry: "bench/telemetry.ts",
  insight: "bench/insight.ts"
}

const requested = process.argv.slice(2)
const unknown = requested.filter((name) => !(name in benches))
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; choose from ${Object.keys(benches).join(", ")}`)
  process.exit(2)
}

let failed = 0
for (const name of requested.length > 0 ? requested : Object.keys(benches)) {
  const file = fileURLToPath(new URL(benches[name]!, import.meta.url))
  if (!existsSync(file)) {
    console.log(`\n== ${name}: not present (${benches[name]})`)
    continue
  }
  console.log(`\n== ${name}`)
  const result = spawnSync(process.execPath, ["--conditions=@svc/source", "--import", "tsx", file], { stdio: "inherit", env: process.env })
  if (result.status !== 0) {
    failed++
    console.error(`== ${name} failed (exit ${result.status})`)
  }
}
process.exit(failed === 0 ? 0 : 1)
