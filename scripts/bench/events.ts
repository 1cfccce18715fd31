/**
 * `npm run bench -- events`: the issue's "Done when" drill at full size, and delivery latency.
 * 1. 5,000 consents across two replicas on one database (SVC_BENCH_DIALECT, default postgres via
 *    SVC_TEST_PG_URL; mysql via SVC_TEST_MYSQL_URL), receiver failing 20% at random and down for
 *    3 s, NATS too when SVC_TEST_NATS_URL is set: reports what was delivered and how.
 * 2. A healthy receiver, default delivery settings (250 ms idle poll): delivery latency (commit to
 *    first 2xx) p50/p95. Target: p50 under 1 s.
 * Numbers are printed, never asserted.
 */
import type { SqlDialect } from "@svc/backend"
import { runEventDrill } from "../../packages/backend/test/support/event-drill.js"

const dialect = (process.env.SVC_BENCH_DIALECT ?? (process.env.SVC_TEST_PG_URL ? "postgres" : "sqlite")) as SqlDialect
const count = Number(process.env.SVC_BENCH_EVENTS ?? 5_000)
const natsUrl = process.env.SVC_TEST_NATS_URL
const pct = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN

console.log(`dialect ${dialect}, ${count} consents over 2 replicas${natsUrl === undefined ? "" : ", NATS on"}`)
const faulty = await runEventDrill({ dialect, count, subjects: Math.ceil(count / 5), failRate: 0.2, downMs: 3_000, natsUrl, deadlineMs: 600_000 })
console.log(
  `faulty receiver: ${faulty.events} events, ${faulty.deliveredEvents} delivered, ${faulty.undelivered.length} missing, ` +
    `${faulty.requests} requests, ${faulty.badSignatures} bad signatures, ${faulty.overlaps.length} concurrent duplicates, ` +
    `${faulty.orderViolations} order violations${faulty.natsMissing === undefined ? "" : `, ${faulty.natsMissing.length} missing in NATS`}; ` +
    `saves ${faulty.saveMs} ms (${Math.round(count / (faulty.saveMs / 1000))}/s), drained ${faulty.drainMs} ms after`
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
