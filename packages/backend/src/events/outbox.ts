import type { SvcEventType } from "@svc/schema"
import type { SqlError } from "@effect/sql"
import { randomBytes } from "node:crypto"
import { Clock, Effect, Schema } from "effect"
import { EventSinks } from "../config/event-sinks.js"
import { SvcConfig } from "../config/resolved.js"
import { EventsRepo } from "./repository.js"

export const newEventId = () => `evt_${randomBytes(16).toString("base64url")}`
export const newDeliveryId = () => `dlv_${randomBytes(16).toString("base64url")}`

/**
 * One event a feature reports: `schema` is the event's envelope in `@svc/schema`
 * (`{ id, type, occurredAt, tenantId, data }`); the outbox fills in all but `data`.
 * `orderKey` groups the events whose order is kept (a subject's, a document type's).
 *
 * @example
 * ```ts
 * import type { PendingEvent } from "@svc/backend"
 * import { SubjectLinkedEvent } from "@svc/schema"
 *
 * type Linked = PendingEvent<typeof SubjectLinkedEvent.Type, typeof SubjectLinkedEvent.Encoded>
 *
 * // A subject's link, as an event kept in order with the subject's other events.
 * const linked = (subjectId: string, externalId: string): Linked => ({
 *   schema: SubjectLinkedEvent,
 *   type: "subject.linked",
 *   orderKey: subjectId,
 *   data: { subjectId, externalId, identityProvider: "external", verified: true }
 * })
 * ```
 */
export interface PendingEvent<A extends { readonly data: unknown }, I> {
  readonly schema: Schema.Schema<A, I>
  readonly type: SvcEventType
  readonly orderKey: string
  readonly data: A["data"]
}

/**
 * The transactional outbox, neutral to what its events report: a feature builds its own event
 * and `append` writes it (and one pending delivery per sink that takes its type) with the
 * caller's SQL client. Called inside the caller's `sql.withTransaction`, the event commits or
 * rolls back with the fact it reports. With no sink taking the type, nothing is written.
 *
 * @example
 * ```ts
 * import { SqlClient } from "@effect/sql"
 * import { EventOutbox } from "@svc/backend"
 * import { type LegalDocumentRelease, LegalDocumentPublishedEvent } from "@svc/schema"
 * import { Effect } from "effect"
 *
 * // The event commits with the fact it reports, or not at all; deliveries start once it has committed.
 * const announce = (release: LegalDocumentRelease) =>
 *   Effect.gen(function*() {
 *     const sql = yield* SqlClient.SqlClient
 *     const outbox = yield* EventOutbox
 *     yield* sql.withTransaction(outbox.append({
 *       schema: LegalDocumentPublishedEvent,
 *       type: "legal_document.published",
 *       orderKey: `legal:${release.type}`,
 *       data: release
 *     }))
 *   })
 * ```
 */
export class EventOutbox extends Effect.Service<EventOutbox>()("@svc/backend/EventOutbox", {
  dependencies: [EventsRepo.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* EventsRepo
    const sinks = yield* EventSinks
    const tenantId = config.tenantId ?? ""

    const endpointsFor = (type: SvcEventType) => sinks.filter((sink) => sink.accepts(type)).map((sink) => sink.id)
    const wanted = (type: SvcEventType) => endpointsFor(type).length > 0

    /** Writes one event and its deliveries, or nothing when no sink takes its type. */
    const append = <A extends { readonly data: unknown }, I>(
      event: PendingEvent<A, I>
    ): Effect.Effect<void, SqlError.SqlError> =>
      Effect.gen(function*() {
        const endpoints = endpointsFor(event.type)
        if (endpoints.length === 0) return
        const now = yield* Clock.currentTimeMillis
        const id = newEventId()
        const encoded = yield* Effect.orDie(
          Schema.encodeUnknown(event.schema)({
            id,
            type: event.type,
            occurredAt: new Date(now),
            tenantId,
            data: event.data
          })
        )
        yield* repo.insertEvent({ id, tenantId, type: event.type, occurredAt: now, payload: JSON.stringify(encoded) })
        for (const endpoint of endpoints) {
          yield* repo.insertDelivery({
            id: newDeliveryId(),
            eventId: id,
            tenantId,
            endpoint,
            orderKey: event.orderKey,
            now
          })
        }
      })

    /** Drops the delivered events of one order key (an erased subject's: they name it); undelivered ones still go out. */
    const purgeDelivered = (orderKey: string) => repo.purgeDeliveredOf({ tenantId, orderKey })

    return { wanted, append, purgeDelivered } as const
  })
}) {}
