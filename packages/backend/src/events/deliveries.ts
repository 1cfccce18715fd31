import { type DatabaseError, NotFound } from "@svc/api"
import type { EventDelivery, EventDeliveryCounts } from "@svc/schema"
import { Clock, Effect, Option } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { type DeliveryRow, EventsRepo } from "./repository.js"
import { EventSinks } from "../config/event-sinks.js"

const DEFAULT_LIMIT = 100

const toDelivery = (row: DeliveryRow, disabled: ReadonlySet<string>): EventDelivery => ({
  id: row.id,
  eventId: row.event_id,
  eventType: row.event_type,
  endpoint: row.endpoint,
  status: row.status,
  attempts: Number(row.attempts),
  nextAttemptAt: row.status === "pending" ? new Date(row.next_attempt_at) : null,
  lastAttemptAt: row.last_attempt_at === null ? null : new Date(row.last_attempt_at),
  lastStatus: row.last_status === null ? null : Number(row.last_status),
  lastError: row.last_error,
  deliveredAt: row.delivered_at === null ? null : new Date(row.delivered_at),
  createdAt: new Date(row.created_at),
  endpointDisabled: disabled.has(row.endpoint)
})

/** What an operator sees of event delivery (`/events/deliveries`, `/status`), and the manual retry. */
export class EventDeliveries extends Effect.Service<EventDeliveries>()("@svc/backend/EventDeliveries", {
  dependencies: [EventsRepo.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* EventsRepo
    const sinks = yield* EventSinks
    const tenantId = config.tenantId ?? ""
    const disabledSet = Effect.map(repo.disabledEndpoints(tenantId), (list) => new Set(list))

    const list = (
      filter: {
        readonly status?: string | undefined
        readonly endpoint?: string | undefined
        readonly limit?: number | undefined
      }
    ) =>
      orDatabaseError(Effect.gen(function*() {
        const rows = yield* repo.list({
          tenantId,
          status: filter.status ?? null,
          endpoint: filter.endpoint ?? null,
          limit: filter.limit ?? DEFAULT_LIMIT
        })
        const disabled = yield* disabledSet
        return { deliveries: rows.map((row) => toDelivery(row, disabled)) }
      }))

    const retry = (id: string): Effect.Effect<EventDelivery, NotFound | DatabaseError> =>
      orDatabaseError(Effect.gen(function*() {
        const found = yield* repo.findById({ tenantId, id })
        if (Option.isNone(found)) return yield* Effect.fail(new NotFound({ message: "No such event delivery" }))
        const now = yield* Clock.currentTimeMillis
        yield* repo.enableEndpoint({ tenantId, endpoint: found.value.endpoint })
        yield* repo.retry({ tenantId, id, now })
        const updated = yield* repo.findById({ tenantId, id })
        const disabled = yield* disabledSet
        return toDelivery(Option.getOrElse(updated, () => found.value), disabled)
      }))

    /** `/status` counts; `undefined` when no sink is configured. */
    const counts: Effect.Effect<EventDeliveryCounts | undefined, DatabaseError> = sinks.length === 0
      ? Effect.succeed(undefined)
      : orDatabaseError(Effect.gen(function*() {
        const { failed, pending } = yield* repo.counts(tenantId)
        const disabledEndpoints = yield* repo.disabledEndpoints(tenantId)
        return { pending, failed, disabledEndpoints }
      }))

    return { list, retry, counts } as const
  })
}) {}
