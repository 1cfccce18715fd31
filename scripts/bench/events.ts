/**
 * `npm run bench -- events`: the issue's "Done when" drill at full size, and delivery latency, on
 * each database whose URL is set (PostgreSQL via SVC_TEST_PG_URL, MySQL via SVC_TEST_MYSQL_URL;
 * SVC_BENCH_DIALECT=postgres,mysql picks; SQLite when neither is set).
 * 1. 5,000 consents (SVC_BENCH_EVENTS) across two replicas on one database, receiver failing 20%
 *    at random and down for 3 s, NATS too when SVC_TEST_NATS_URL is set: reports what was
 *    delivered and how, and how long the saves and the drain after them took.
 * 2. A healthy receiver, default delivery settings (250 ms idle poll): delivery latency (commit to
 *    first 2xx) p50/p95. Target: p50 under 1 s.
 * Numbers are printed, never asserted.
 */
import type { SqlDialect } from "@svc/backend"
import { runEventDrill } from "../../packages/backend/test/support/event-drill.js"

const configured: Array<SqlDialect> = [
  ...(process.env.SVC_TEST_PG_URL ? ["postgres" as const] : []),
  ...(process.env.SVC_TEST_MYSQL_URL ? ["mysql" as const] : [])
]
const chosen = process.env.SVC_BENCH_DIALECT?.split(",") as Array<SqlDialect> | undefined
const dialects = chosen ?? (configured.length > 0 ? configured : ["sqlite" as const])
const count = Number(process.env.SVC_BENCH_EVENTS ?? 5_000)
const natsUrl = process.env.SVC_TEST_NATS_URL
const pct = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN

for (const dialect of dialects) {
  console.log(`dialect ${dialect}, ${count} consents over 2 replicas${natsUrl === undefined ? "" : ", NATS on"}`)
  const started = Date.now()
  const faulty = await runEventDrill({
    dialect,
    count,
    subjects: Math.ceil(count / 5),
    failRate: 0.2,
    downMs: 3_000,
    natsUrl,
    deadlineMs: 600_000
  })
  console.log(
    `faulty receiver: ${faulty.events} events, ${faulty.deliveredEvents} delivered, ${faulty.undelivered.length} missing, ` +
      `${faulty.requests} requests, ${faulty.badSignatures} bad signatures, ${faulty.overlaps.length} concurrent duplicates, ` +
      `${faulty.orderViolations} order violations${
        faulty.natsMissing === undefined ? "" : `, ${faulty.natsMissing.length} missing in NATS`
      }; ` +
      `saves ${faulty.saveMs} ms (${
        Math.round(count / (faulty.saveMs / 1000))
      }/s), drained ${faulty.drainMs} ms after; ` +
      `whole drill ${Math.round((Date.now() - started) / 1000)} s`
  )
  const healthy = await runEventDrill({
    dialect,
    count: Math.min(count, 1_000),
    subjects: 1_000,
    failRate: 0,
    downMs: 0,
    natsUrl,
    concurrency: 4,
    delivery: {}
  })
  console.log(
    `healthy receiver: ${healthy.events} events, latency commit to 2xx p50 ${pct(healthy.latencies, 0.5)} ms, ` +
      `p95 ${pct(healthy.latencies, 0.95)} ms, max ${healthy.latencies.at(-1)} ms (target p50 < 1000 ms)`
  )
}
