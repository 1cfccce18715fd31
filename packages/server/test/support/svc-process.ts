import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** The real `svc` command (the bundled build `npm test` makes first). */
export const bin = fileURLToPath(new URL("../../bin/svc.js", import.meta.url))

const children = new Set<ChildProcess>()

/** Kills every `svc` process a test started and left running (call it from `afterEach`). */
export const killChildren = () => {
  for (const child of children) child.kill("SIGKILL")
  children.clear()
}

/** Spawns `svc ...args` and tracks it for `killChildren`. */
export const spawnSvc = (args: ReadonlyArray<string>, cwd: string, env: Record<string, string | undefined> = {}) => {
  const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, ...env } })
  children.add(child)
  child.on("exit", () => children.delete(child))
  return child
}

/** Runs `svc ...args` to its end, or until its stdout matches `until` (then the process is killed). */
export const run = (
  args: ReadonlyArray<string>,
  cwd: string,
  env: Record<string, string | undefined> = {},
  until?: RegExp
) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawnSvc(args, cwd, env)
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (d) => {
      stdout += d
      if (until?.test(stdout) === true) child.kill("SIGKILL")
    })
    child.stderr!.on("data", (d) => (stderr += d))
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

/** Starts `svc serve` and resolves with its URL once the startup line is printed. */
export const serve = (cwd: string, args: ReadonlyArray<string> = [], env: Record<string, string | undefined> = {}) =>
  new Promise<{ url: string; child: ChildProcess; output: () => string }>((resolve, reject) => {
    const child = spawnSvc(["serve", "--port", "0", "--host", "127.0.0.1", ...args], cwd, env)
    let output = ""
    const onData = (d: Buffer) => {
      output += d
      const match = /svc listening on (http:\/\/\S+)/.exec(output)
      if (match) resolve({ url: match[1]!, child, output: () => output })
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", (d) => (output += d))
    child.on("exit", (code) => reject(new Error(`svc serve exited with ${code}: ${output}`)))
  })

export const tempDir = () => mkdtempSync(join(tmpdir(), "svc-cli-"))

/** A port that was free a moment ago (for tests that must know the port before the server binds it). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
