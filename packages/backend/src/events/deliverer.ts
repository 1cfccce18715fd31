import { Clock, Effect, Exit, Layer, Random, Schedule } from "effect"
import { randomBytes } from "node:crypto"
import { SvcConfig } from "../config/resolved.js"
import { retryDeadlocks } from "../database/deadlock.js"
import { nextAttemptAt } from "./backoff.js"
import { type ClaimedRow, EventsRepo } from "./repository.js"
import { type DeliveryOutcome, EventSinks, type OutgoingEvent } from "../config/event-sinks.js"

const MAX_ERROR = 500

/**
 * Delivers the outbox: each round claims due deliveries (a lease that other replicas respect
 * until it expires, so a delivery is never in flight twice at once, and a killed replica's
 * claims become due again), hands each to its sink, and records the outcome under the same claim.
 * Only the first pending event per endpoint and subject is due, so a subject's events arrive in
 * order. Database failures are logged and the loop carries on: delivery resumes by itself.
 */
export class EventDeliverer extends Effect.Service<EventDeliverer>()("@svc/backend/EventDeliverer", {
  dependencies: [EventsRepo.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* EventsRepo
    const sinks = yield* EventSinks
    const settings = config.events.delivery
    const tenantId = config.tenantId ?? ""
    const byId = new Map(sinks.map((sink) => [sink.id, sink]))

    const record = (row: ClaimedRow, token: string, outcome: DeliveryOutcome) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const base = { id: row.id, claim: token, now, attempted: true }
        switch (outcome._tag) {
          case "Delivered":
            return yield* repo.settle({
              ...base,
              status: "delivered",
              nextAttemptAt: now,
              lastStatus: outcome.status ?? null,
              lastError: null
            })
          case "EndpointGone":
            yield* Effect.logWarning(`event endpoint ${row.endpoint} disabled: ${outcome.reason}`)
            yield* repo.disableEndpoint({
              tenantId,
              endpoint: row.endpoint,
              now,
              reason: outcome.reason.slice(0, MAX_ERROR)
            })
            return yield* repo.settle({
              ...base,
              status: "pending",
              nextAttemptAt: now,
              lastStatus: outcome.status ?? null,
              lastError: outcome.reason.slice(0, MAX_ERROR)
            })
          case "RetryLater": {
            const random = yield* Random.next
            const next = nextAttemptAt(settings.retry, {
              now,
              createdAt: row.created_at,
              failures: Number(row.attempts) + 1,
              random,
              retryAfterMs: outcome.retryAfterMs
            })
            yield* Effect.logDebug(`event delivery to ${row.endpoint} failed: ${outcome.reason}`)
            return yield* repo.settle({
              ...base,
              status: next === undefined ? "failed" : "pending",
              nextAttemptAt: next ?? now,
              lastStatus: outcome.status ?? null,
              lastError: outcome.reason.slice(0, MAX_ERROR)
            })
          }
        }
      })

    /** Tries again while the database is unreachable (a restart, a deadlock), at most for a lease. */
    const patiently = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.retry(
        effect,
        Schedule.exponential("100 millis").pipe(
          Schedule.either(Schedule.spaced("2 seconds")),
          Schedule.upTo(settings.leaseMs)
        )
      )
    /**
     * Records an outcome patiently: a delivery made is then not made a second time. Past the lease
     * the delivery is due again and is sent again (at least once). Never fails.
     */
    const recordPatiently = (row: ClaimedRow, token: string, outcome: DeliveryOutcome) =>
      patiently(record(row, token, outcome)).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning(
            `could not record the outcome of event delivery ${row.id}; it is sent again after its lease`,
            cause
          )
        )
      )

    /** A round that failed after its claim may have reached the database: its leases are given back, not left to expire. */
    const releasePatiently = (token: string) =>
      patiently(repo.release(token)).pipe(Effect.catchAllCause(() => Effect.void))

    const deliverOne = (row: ClaimedRow, token: string) =>
      Effect.gen(function*() {
        const sink = byId.get(row.endpoint)
        if (sink === undefined) return
        const event: OutgoingEvent = {
          id: row.event_id,
          type: row.event_type,
          body: row.payload,
          attempt: Number(row.attempts) + 1
        }
        const outcome = yield* sink.deliver(event)
        yield* recordPatiently(row, token, outcome)
      })

    /**
     * One round of one endpoint: claims up to a batch and delivers it. Returns how many were due,
     * claimed here or by another replica first: a round that lost its claims to another replica goes
     * again at once (the next due ones), it does not wait for the poll interval.
     */
    const round = (endpoint: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        if ((yield* repo.disabledEndpoints(tenantId)).includes(endpoint)) return 0
        const ids = yield* repo.dueIds({ tenantId, endpoints: [endpoint], now, limit: settings.batchSize })
        if (ids.length === 0) return 0
        const token = randomBytes(16).toString("base64url")
        // MySQL may pick the claim as the victim of a deadlock with the saves inserting deliveries.
        const rows = yield* retryDeadlocks(repo.claim({ ids, claim: token, now, leaseUntil: now + settings.leaseMs }))
          .pipe(
            Effect.zipRight(repo.claimed(token)),
            Effect.tapError(() => releasePatiently(token))
          )
        yield* Effect.forEach(rows, (row) => deliverOne(row, token), { concurrency: "unbounded", discard: true })
        return ids.length
      })

    /**
     * Rounds of one endpoint until interrupted: straight on after a busy round, after
     * `pollIntervalMs` after an idle one. Each endpoint has its own rounds, so a slow receiver (each
     * round waits for its slowest request) holds up no other endpoint. Failed rounds (the database
     * restarting) wait longer each time, up to 5 s, and are logged once per outage, with a line when
     * delivery resumes.
     */
    const deliverRounds = (endpoint: string) =>
      Effect.gen(function*() {
        let failed = 0
        while (true) {
          const exit = yield* Effect.exit(round(endpoint))
          if (Exit.isSuccess(exit)) {
            if (failed > 0) yield* Effect.logInfo(`event delivery to ${endpoint} resumed after ${failed} failed rounds`)
            failed = 0
            if (exit.value === 0) yield* Effect.sleep(settings.pollIntervalMs)
            continue
          }
          if (failed === 0)
            yield* Effect.logWarning(
              `event delivery round of ${endpoint} failed; trying again until it works`,
              exit.cause
            )
          failed++
          yield* Effect.sleep(Math.min(settings.pollIntervalMs * 2 ** Math.min(failed, 8), 5_000))
        }
      })

    /** Delivered events are kept `keepDeliveredMs` (for the operator's list), then deleted: they name subjects. */
    const purge = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* repo.purgeDelivered({ tenantId, before: now - settings.keepDeliveredMs })
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("purging delivered events failed", cause)))
    const purgeRounds = Effect.forever(
      Effect.zipRight(purge, Effect.sleep(Math.min(settings.keepDeliveredMs, 3_600_000)))
    )

    const run = Effect.all([purgeRounds, ...sinks.map((sink) => deliverRounds(sink.id))], {
      concurrency: "unbounded",
      discard: true
    })

    return { round, purge, run } as const
  })
}) {}

/** Runs the deliverer for the lifetime of the instance, when delivery is on and any sink is configured. */
export const EventDeliveryLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const sinks = yield* EventSinks
    if (!config.events.delivery.enabled || sinks.length === 0) return
    const deliverer = yield* EventDeliverer
    yield* Effect.forkScoped(deliverer.run)
  })
).pipe(Layer.provide(EventDeliverer.Default))
