/**
 * `npm run drill -- <name>`: fault drills, each in its own process, not part of the test suite
 * (they build real server formations and take minutes). Names: failover.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const drills: Record<string, string> = {
  failover: "drill/failover.ts"
}

const [name, ...rest] = process.argv.slice(2)
if (name === undefined || !(name in drills)) {
  console.error(`choose a drill: ${Object.keys(drills).join(", ")}`)
  process.exit(2)
}
const file = fileURLToPath(new URL(drills[name]!, import.meta.url))
const result = spawnSync(process.execPath, ["--conditions=@svc/source", "--import", "tsx", file, ...rest], {
  stdio: "inherit"
})
process.exit(result.status ?? 1)
