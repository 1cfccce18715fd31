import { describe, expect, it } from "vitest"
import { databaseServers, serverDialects } from "./support/dialects.js"
import { runEventDrill } from "./support/event-drill.js"
import { optionalServers } from "./support/optional-servers.js"
import { skippedWithout } from "./support/server-suites.js"

/*
 * The "Done when": two replicas on one PostgreSQL and one MySQL database, consents saved
 * across both while the receiver fails 20% of requests at random and is down for a stretch; every
 * event is then delivered with a valid signature, at least once, never twice at the same time, in
 * order per subject, and published to NATS JetStream (when SVC_TEST_NATS_URL is set). 500 consents
 * in CI (about 7 s per database); SVC_TEST_EVENT_DRILL=5000 runs the full size here (about
 * a minute per database on a quiet machine), and `npm run bench -- events` runs 5,000 and measures latency.
 */
const COUNT = Number(process.env.SVC_TEST_EVENT_DRILL ?? 500)

if (serverDialects.length === 0) skippedWithout("two replicas deliver every event", databaseServers)

describe.each(serverDialects)("two replicas deliver every event [%s]", (dialect) => {
  it(
    `${COUNT} consents, a receiver failing 20% and down for a second: all delivered, signed, at least once, never concurrently, in order`,
    async () => {
      const report = await runEventDrill({
        dialect,
        count: COUNT,
        subjects: Math.ceil(COUNT / 5),
        failRate: 0.2,
        downMs: 1_000,
        natsUrl: optionalServers.nats.url,
        deadlineMs: 60_000
      })
      console.info(`[${dialect}] saves ${report.saveMs} ms, drain ${report.drainMs} ms, ${report.requests} requests`)
      expect(report.events).toBe(COUNT)
      expect(report.undelivered).toEqual([])
      expect(report.deliveredEvents).toBe(COUNT)
      expect(report.badSignatures).toBe(0)
      expect(report.overlaps).toEqual([])
      expect(report.orderViolations).toBe(0)
      // The receiver really failed requests: more requests than events.
      expect(report.requests).toBeGreaterThan(report.events)
      if (optionalServers.nats.url !== undefined) expect(report.natsMissing).toEqual([])
    },
    120_000 + COUNT * 100
  )
})
