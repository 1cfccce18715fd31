// Session reports wait on a slow `sessions.onReport` at most 1,000 at a time: past that they are
// dropped with a warning, the request is answered as always, and delivery resumes once the
// callback catches up. Through `POST /sessions` on the instance's web handler (the same pipeline
// as `svc serve`, without a socket per request: the test sends over a thousand); the callback's
// promises are settled by the test, so nothing waits on real time.
import { svcInstance } from "@svc/backend"
import type { SessionReport } from "@svc/schema"
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { manifest } from "./support/policy-manifest.js"
import { sessionReport } from "./support/session-report.js"

const MAX_IN_FLIGHT = 1000

const report = { ...sessionReport, journey: null } as const

/** Every line the server logs through `console` while a test runs. */
const captureConsole = () => {
  const lines: Array<string> = []
  const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: Array<unknown>) => {
      lines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "))
    })
  )
  return { lines, restore: () => spies.forEach((spy) => spy.mockRestore()) }
}

describe("sessions.onReport backpressure", () => {
  const received: Array<SessionReport> = []
  const pending: Array<() => void> = []
  const instance = svcInstance({
    database: { dialect: "sqlite", url: ":memory:" },
    manifest,
    sessions: {
      onReport: (r) => {
        received.push(r)
        return new Promise<void>((settle) => pending.push(settle))
      }
    }
  }, { migrate: true })
  afterAll(() => instance.dispose())
  let capture: ReturnType<typeof captureConsole>
  beforeEach(() => {
    capture = captureConsole()
  })
  afterEach(() => capture.restore())

  /** `count` reports, `concurrency` requests at a time; each must be answered 204. */
  const send = async (count: number, concurrency = 25) => {
    let next = 0
    const statuses: Array<number> = []
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const journey = { id: `jrn_${next++}` }
        const response = await instance.handler(
          new Request("http://svc.example/sessions", {
            method: "POST",
            headers: { "content-type": "application/json", "x-svc-version": "3.1.0" },
            body: JSON.stringify({ ...report, journey })
          })
        )
        await response.arrayBuffer()
        statuses.push(response.status)
      }
    }))
    expect(statuses.filter((status) => status !== 204)).toEqual([])
    expect(statuses).toHaveLength(count)
  }

  const dropWarnings = () => capture.lines.filter((line) => line.includes("sessions.onReport is not keeping up"))

  it(
    "holds 1,000 reports on a callback that has not settled, drops the rest with one warning, and resumes once it settles",
    async () => {
      await send(MAX_IN_FLIGHT + 50)
      await expect.poll(() => received.length).toBe(MAX_IN_FLIGHT)
      // The requests past the bound were answered, their reports dropped, not queued.
      await send(10)
      await expect.poll(() => dropWarnings().length).toBe(1)
      expect(received).toHaveLength(MAX_IN_FLIGHT)
      expect(dropWarnings()[0]).toMatch(/dropped=1\b/)

      // The callback catches up: the next report is delivered.
      pending.splice(0).forEach((settle) => settle())
      await send(1)
      await expect.poll(() => received.length).toBe(MAX_IN_FLIGHT + 1)
      expect(received.at(-1)?.journey?.id).toBe("jrn_0")
      expect(dropWarnings()).toHaveLength(1)
    },
    120_000
  )
})
