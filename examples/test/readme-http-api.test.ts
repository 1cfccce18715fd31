// The README's "The HTTP API with curl" runs as written: its `sh` blocks go, in order, to one bash
// (real curl, jq and openssl) with each block's output in a file of its own, and every answer
// must equal the `json` block the README shows after the command (`…` in a shown string stands
// for what differs from run to run). SQLite runs the first block too (`npx svc serve` on a free
// port instead of 3000); PostgreSQL and MySQL start the same config with startServer and run the rest.
import { startServer } from "@svc/server"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { dialects, freshDatabase } from "../../packages/backend/test/support/dialects.js"
import { walkthroughSteps } from "./readme-blocks.js"

const root = resolve(import.meta.dirname, "../..")
const steps = walkthroughSteps(join(root, "README.md"), "The HTTP API with curl")

const TOOLS = ["bash", "curl", "jq", "openssl"]
const missing = TOOLS.filter((tool) => {
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" })
    return false
  } catch {
    return true
  }
})
const runnable = missing.length === 0 || process.env.CI === "true"
if (!runnable) console.warn(`README curl walkthrough skipped: ${missing.join(", ")} not installed; CI always runs it`)

/** A shown answer as a matcher: a string with `…` matches any text in its place. */
const shown = (value: unknown): unknown => {
  if (typeof value === "string" && value.includes("…")) {
    const pattern = value.split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".+")
    return expect.stringMatching(new RegExp(`^${pattern}$`))
  }
  if (Array.isArray(value)) return value.map(shown)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shown(inner)]))
  }
  return value
}

const freePort = () =>
  new Promise<number>((done) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => done(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Runs the steps in one bash in the repository root; resolves with each step's output once bash exits. */
const runSteps = async (run: ReadonlyArray<{ readonly code: string }>, env: Record<string, string>) => {
  const out = mkdtempSync(join(tmpdir(), "svc-readme-curl-"))
  cleanups.push(() => rmSync(out, { recursive: true, force: true }))
  const script = ["set -euo pipefail", ...run.map((step, i) => `{\n${step.code}\n} > "${out}/${i}"`)].join("\n")
  const child: ChildProcess = spawn("bash", ["-c", script], {
    cwd: root,
    detached: true, // its own process group: a server the script starts goes with it
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"]
  })
  cleanups.push(() => {
    try {
      process.kill(-child.pid!, "SIGKILL")
    } catch {
      // the group is gone
    }
  })
  let stderr = ""
  child.stderr!.on("data", (d) => (stderr += d))
  const code = await new Promise<number | null>((done) => child.once("exit", done))
  const outputs = run.map((_, i) => {
    try {
      return readFileSync(join(out, String(i)), "utf8")
    } catch {
      return undefined
    }
  })
  return { code, stderr, outputs }
}

const expectAnswers = (
  run: ReadonlyArray<(typeof steps)[number]>,
  result: Awaited<ReturnType<typeof runSteps>>
) => {
  // A block's output file is made when the block starts: the last one made is where bash stopped.
  const reached = result.outputs.filter((output) => output !== undefined).length - 1
  expect(result.code, `bash stopped in README.md:${run[reached]?.line}: ${result.stderr}`).toBe(0)
  run.forEach((step, i) => {
    if (step.expected === undefined) return
    const output = result.outputs[i]!
    let answer: unknown
    try {
      answer = JSON.parse(output)
    } catch {
      throw new Error(`README.md:${step.line} printed no JSON: ${output}`)
    }
    expect(answer, `README.md:${step.line}`).toEqual(shown(step.expected))
  })
}

describe.runIf(runnable)("README: the HTTP API with curl", () => {
  it("is a walk of at least ten commands, each answer shown after it", () => {
    expect(steps[0]!.code).toContain("npx svc serve --config examples/http-api.config.ts --port 3000 &")
    expect(steps[0]!.code).toContain("SVC=http://127.0.0.1:3000")
    expect(steps[0]!.expected).toBeUndefined()
    expect(steps.length).toBeGreaterThanOrEqual(10)
    for (const step of steps.slice(1)) expect(step.expected, `README.md:${step.line} shows its answer`).toBeDefined()
  })

  it.each(dialects)("runs as written, every answer as shown (%s)", async (dialect) => {
    if (dialect === "sqlite") {
      const port = String(await freePort())
      const folder = mkdtempSync(join(tmpdir(), "svc-readme-curl-db-"))
      cleanups.push(() => rmSync(folder, { recursive: true, force: true }))
      const run = [{ ...steps[0]!, code: steps[0]!.code.replaceAll("3000", port) }, ...steps.slice(1)]
      expectAnswers(run, await runSteps(run, { SVC_DATABASE_URL: join(folder, "svc.db") }))
      return
    }
    const keys = {
      SVC_API_KEY: "readme-curl-api-key-".padEnd(64, "0"),
      SVC_SNAPSHOT_KEY: "readme-curl-snapshot-key-".padEnd(64, "1")
    }
    Object.assign(process.env, keys)
    const options = (await import("../http-api.config.js")).default
    const fresh = await freshDatabase(dialect)
    cleanups.push(() => fresh.drop())
    const server = await startServer({ ...options, database: fresh.database, observability: { requests: "none" } }, {
      port: 0,
      host: "127.0.0.1"
    })
    cleanups.push(() => server.close())
    const run = steps.slice(1)
    expectAnswers(run, await runSteps(run, { ...keys, SVC: server.url }))
  }, 120_000)
})
