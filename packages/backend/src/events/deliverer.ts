import { Clock, Effect, Layer, Random } from "effect"
import { randomBytes } from "node:crypto"
import { SvcConfig } from "../config/resolved.js"
import { nextAttemptAt } from "./backoff.js"
import { type ClaimedRow, EventsRepo } from "./repository.js"
import { type DeliveryOutcome, EventSinks, type OutgoingEvent } from "./sinks.js"

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
            return yield* repo.settle({ ...base, status: "delivered", nextAttemptAt: now, lastStatus: outcome.status ?? null, lastError: null })
          case "EndpointGone":
            yield* Effect.logWarning(`event endpoint ${row.endpoint} disabled: ${outcome.reason}`)
            yield* repo.disableEndpoint({ tenantId, endpoint: row.endpoint, now, reason: outcome.reason.slice(0, MAX_ERROR) })
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

    const deliverOne = (row: ClaimedRow, token: string) =>
      Effect.gen(function*() {
        const sink = byId.get(row.endpoint)
        if (sink === undefined) return
        const event: OutgoingEvent = {
          id: row.event_id,
          type: row.event_type as OutgoingEvent["type"],
          body: row.payload,
          attempt: Number(row.attempts) + 1
        }
        const outcome = yield* sink.deliver(event)
        yield* record(row, token, outcome)
      })

    /** One round: claims up to a batch and delivers it. Returns how many were claimed. */
    const round = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const disabled = new Set(yield* repo.disabledEndpoints(tenantId))
      const endpoints = sinks.map((sink) => sink.id).filter((id) => !disabled.has(id))
      const ids = yield* repo.dueIds({ tenantId, endpoints, now, limit: settings.batchSize })
      if (ids.length === 0) return 0
      const token = randomBytes(16).toString("base64url")
      yield* repo.claim({ ids, claim: token, now, leaseUntil: now + settings.leaseMs })
      const rows = yield* repo.claimed(token)
      yield* Effect.forEach(rows, (row) => deliverOne(row, token), { concurrency: "unbounded", discard: true })
      return rows.length
    })

    /** Rounds until interrupted: straight on after a busy round, after `pollIntervalMs` after an idle or failed one. */
    const deliverRounds = round.pipe(
      Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("event delivery round failed", cause), 0)),
      Effect.flatMap((claimed) => claimed === 0 ? Effect.sleep(settings.pollIntervalMs) : Effect.void),
      Effect.forever
    )

    /** Delivered events are kept `keepDeliveredMs` (for the operator's list), then deleted: they name subjects. */
    const purge = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* repo.purgeDelivered({ tenantId, before: now - settings.keepDeliveredMs })
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("purging delivered events failed", cause)))
    const purgeRounds = Effect.forever(Effect.zipRight(purge, Effect.sleep(Math.min(settings.keepDeliveredMs, 3_600_000))))

    const run = Effect.zip(deliverRounds, purgeRounds, { concurrent: true })

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
