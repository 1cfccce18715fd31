/** Child processes for the benchmarks: free ports, start-until-ready, stop, peak memory. */
import { type ChildProcess, spawn } from "node:child_process"
import { readFile } from "node:fs/promises"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"

export const ROOT = fileURLToPath(new URL("../..", import.meta.url))

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

/** Runs `node ...args` and resolves once its output matches `ready`. */
export const startNode = (args: ReadonlyArray<string>, ready: RegExp, env: Record<string, string> = {}) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
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

/** SIGTERM, then SIGKILL after 5 s. */
export const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
    setTimeout(() => child.kill("SIGKILL"), 5_000).unref()
  })

/** Peak resident memory of a process (VmHWM), in MB. */
export const peakRssMb = async (pid: number) => {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "")
  const kb = /VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1]
  return kb === undefined ? Number.NaN : Number(kb) / 1024
}
