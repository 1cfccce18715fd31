import { describe, expect, it } from "vitest"
import { dialects } from "./support/dialects.js"
import { runEventDrill } from "./support/event-drill.js"

/*
 * The "Done when": two replicas on one PostgreSQL and one MySQL database, consents saved
 * across both while the receiver fails 20% of requests at random and is down for a stretch; every
 * event is then delivered with a valid signature, at least once, never twice at the same time, in
 * order per subject, and published to NATS JetStream (when SVC_TEST_NATS_URL is set). 500 consents
 * here; `npm run bench -- events` runs 5,000 and measures latency.
 */
const shared = dialects.filter((d) => d !== "sqlite")

describe.runIf(shared.length > 0).each(shared)("two replicas deliver every event [%s]", (dialect) => {
  it("500 consents, a receiver failing 20% and down for a second: all delivered, signed, at least once, never concurrently, in order", async () => {
    const report = await runEventDrill({
      dialect,
      count: 500,
      subjects: 100,
      failRate: 0.2,
      downMs: 1_000,
      natsUrl: process.env.SVC_TEST_NATS_URL,
      deadlineMs: 60_000
    })
    console.info(`[${dialect}] saves ${report.saveMs} ms, drain ${report.drainMs} ms, ${report.requests} requests`)
    expect(report.events).toBe(500)
    expect(report.undelivered).toEqual([])
    expect(report.deliveredEvents).toBe(500)
    expect(report.badSignatures).toBe(0)
    expect(report.overlaps).toEqual([])
    expect(report.orderViolations).toBe(0)
    // The receiver really failed requests: more requests than events.
    expect(report.requests).toBeGreaterThan(report.events)
    if (process.env.SVC_TEST_NATS_URL !== undefined) expect(report.natsMissing).toEqual([])
  }, 120_000)
})
