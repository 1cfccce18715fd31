import { request } from "node:http"
import { afterEach, describe, expect, it } from "vitest"
import { freePort, killChildren, spawnSvc, tempDir } from "./support/svc-process.js"

afterEach(killChildren)

type Outcome =
  | { readonly kind: "refused" }
  | { readonly kind: "answered"; readonly path: string; readonly status: number }
  | { readonly kind: "unanswered"; readonly path: string; readonly reason: string }

/**
 * One request with its own deadline. A refused connection is fine (the port is not open yet);
 * a connection that was accepted and then got no complete answer is what must never happen.
 */
const probe = (port: number, path: string, timeoutMs: number) =>
  new Promise<Outcome>((resolve) => {
    let connected = false
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      res.resume()
      res.on("end", () => resolve({ kind: "answered", path, status: res.statusCode ?? 0 }))
      res.on("error", (error) => resolve({ kind: "unanswered", path, reason: error.message }))
    })
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.on("socket", (socket) => socket.once("connect", () => (connected = true)))
    req.on("error", (error) =>
      resolve(connected ? { kind: "unanswered", path, reason: error.message } : { kind: "refused" }))
    req.end()
  })

/**
 * Spawns `svc serve` on a fresh SQLite file (so migrations run) and fires a request every few ms
 * from the moment of spawn until well after the startup line.
 */
const startUnderFire = async (everyMs: number, afterReady: number, timeoutMs: number) => {
  const port = await freePort()
  const child = spawnSvc(["serve", "--port", String(port), "--host", "127.0.0.1"], tempDir())
  let output = ""
  let ready = false
  child.stdout!.on("data", (d) => {
    output += d
    if (output.includes("svc listening on")) ready = true
  })
  child.stderr!.on("data", (d) => (output += d))
  let exited = false
  child.on("exit", () => (exited = true))
  const paths = ["/status", "/init?country=DE", "/init?country=US&region=CA", "/manifest"]
  const outcomes: Array<Promise<Outcome>> = []
  let sinceReady = 0
  while (sinceReady < afterReady && !exited) {
    outcomes.push(probe(port, paths[outcomes.length % paths.length]!, timeoutMs))
    if (ready) sinceReady++
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  const settled = await Promise.all(outcomes)
  const exitedEarly = exited
  const stopped = new Promise((resolve) => child.once("exit", resolve))
  child.kill("SIGKILL")
  await stopped
  return { settled, output, exitedEarly }
}

describe("svc serve readiness", () => {
  it("answers every request that connects, from the first accepted connection on, over many starts", async () => {
    const starts = 10
    let answered = 0
    let refused = 0
    for (let i = 0; i < starts; i++) {
      const { exitedEarly, output, settled } = await startUnderFire(5, 20, 10_000)
      expect(exitedEarly, output).toBe(false)
      const unanswered = settled.filter((o) => o.kind === "unanswered")
      expect(unanswered, `start ${i + 1}: requests connected but never answered`).toEqual([])
      const answers = settled.flatMap((o) => (o.kind === "answered" ? [o] : []))
      expect(answers.length).toBeGreaterThanOrEqual(20)
      expect(answers.filter((a) => a.status !== 200)).toEqual([])
      answered += answers.length
      refused += settled.filter((o) => o.kind === "refused").length
    }
    // Most requests were fired before the port opened: the window before readiness was probed.
    expect(refused).toBeGreaterThan(starts * 10)
    expect(answered).toBeGreaterThanOrEqual(starts * 20)
  }, 400_000)
})
