import { Schema } from "effect"
import { OptionalCategory } from "./categories.js"
import { StandardConsentRecord } from "./consent-record.js"
import { LegalDocumentRelease } from "./legal.js"
import { Timestamp } from "./time.js"

/*
 * Consent events: what svc tells downstream systems (webhooks, a stream) when a fact is stored.
 * Every event is written in the same transaction as its fact (a transactional outbox) and
 * delivered at least once; `id` is stable across redeliveries (the Standard Webhooks `webhook-id`).
 */

/**
 * The type of a consent event: what a webhook's `events` list subscribes to.
 *
 * @example
 * ```ts
 * import { defineConfig } from "@svc/backend"
 * import type { SvcEventType } from "@svc/schema"
 *
 * // The CRM only needs to hear about withdrawals and erasures.
 * const crmEvents: ReadonlyArray<SvcEventType> = ["consent.withdrawn", "subject.erased"]
 *
 * export default defineConfig({
 *   database: { dialect: "postgres", url: process.env.DATABASE_URL! },
 *   webhooks: [
 *     {
 *       id: "crm",
 *       url: "https://crm.example.com/svc-events",
 *       secret: process.env.CRM_WEBHOOK_SECRET!,
 *       events: crmEvents
 *     }
 *   ]
 * })
 * ```
 */
export const SvcEventType = Schema.Literal(
  "consent.recorded",
  "consent.withdrawn",
  "subject.linked",
  "subject.erased",
  "legal_document.published",
  "log.checkpoint"
).annotations({ identifier: "SvcEventType" })
export type SvcEventType = typeof SvcEventType.Type

const envelope = <T extends SvcEventType, D extends Schema.Schema.Any>(type: T, data: D) =>
  Schema.Struct({
    /** `evt_…`, the same on every delivery of the event. */
    id: Schema.String,
    type: Schema.Literal(type),
    occurredAt: Timestamp,
    /** The instance's `tenantId`; `""` for single-tenant scope. */
    tenantId: Schema.String,
    data
  })

/**
 * `consent.recorded`: a stored act (never an idempotent replay), as the export's 27560 record.
 *
 * @example
 * ```ts
 * import { ConsentRecordedEvent } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A warehouse loader keeps one row per recorded act; the event id makes a redelivery an upsert.
 * const toRow = (body: unknown) => {
 *   const { data, id } = Schema.decodeUnknownSync(ConsentRecordedEvent)(body)
 *   const granted = data.purposes.filter((purpose) => purpose.granted).map((purpose) => purpose.category)
 *   return { eventId: id, recordId: data.recordId, type: data.policyType, givenAt: data.givenAt, granted }
 * }
 * ```
 */
export const ConsentRecordedEvent = envelope("consent.recorded", StandardConsentRecord).annotations({
  identifier: "ConsentRecordedEvent"
})

/**
 * `consent.withdrawn`: an act that turns off a category or vendor grant that the subject's
 * previous act of the same type and domain had on. Sent beside that act's `consent.recorded`.
 *
 * @example
 * ```ts
 * import type { ConsentWithdrawnEvent } from "@svc/schema"
 *
 * // The mailing tool stops marketing mail as soon as marketing is withdrawn.
 * const onWithdrawn = async (
 *   event: typeof ConsentWithdrawnEvent.Type,
 *   unsubscribe: (subjectId: string) => Promise<void>
 * ) => {
 *   if (event.data.withdrawnCategories.includes("marketing")) await unsubscribe(event.data.record.principal.subjectId)
 * }
 * ```
 */
export const ConsentWithdrawnEvent = envelope(
  "consent.withdrawn",
  Schema.Struct({
    record: StandardConsentRecord,
    /** The previous act this one withdraws from. */
    previousRecordId: Schema.String,
    withdrawnCategories: Schema.Array(OptionalCategory),
    withdrawnVendors: Schema.Array(Schema.String)
  })
).annotations({ identifier: "ConsentWithdrawnEvent" })

/**
 * `subject.linked`: a subject's identity link was set or changed (`PATCH /subjects/:id`).
 *
 * @example
 * ```ts
 * import type { SubjectLinkedEvent } from "@svc/schema"
 *
 * // The CRM maps a browser to a contact only when the link is verified.
 * const contactLink = ({ data, occurredAt }: typeof SubjectLinkedEvent.Type) =>
 *   data.verified ? { subjectId: data.subjectId, contactId: data.externalId, since: occurredAt } : undefined
 * ```
 */
export const SubjectLinkedEvent = envelope(
  "subject.linked",
  Schema.Struct({
    subjectId: Schema.String,
    externalId: Schema.String,
    identityProvider: Schema.String,
    verified: Schema.Boolean
  })
).annotations({ identifier: "SubjectLinkedEvent" })

/**
 * `subject.erased`: a subject's personal data was removed. `subjectId` is the id the operator
 * erased (receivers must delete what they hold under it); `recordCount` counts the acts kept as
 * anonymous proof.
 *
 * @example
 * ```ts
 * import { SqlClient } from "@effect/sql"
 * import { SubjectErasedEvent } from "@svc/schema"
 * import { Effect, Schema } from "effect"
 *
 * // A receiver deletes what it holds under the erased subject and the user ids it was linked to.
 * const onErased = (body: unknown) =>
 *   Effect.gen(function*() {
 *     const { data } = yield* Schema.decodeUnknown(SubjectErasedEvent)(body)
 *     const sql = yield* SqlClient.SqlClient
 *     yield* sql`DELETE FROM crm_consents WHERE subject_id = ${data.subjectId}`
 *     if (data.externalIds.length > 0) {
 *       yield* sql`DELETE FROM crm_contacts WHERE user_id IN ${sql.in(data.externalIds)}`
 *     }
 *   })
 * ```
 */
export const SubjectErasedEvent = envelope(
  "subject.erased",
  Schema.Struct({
    subjectId: Schema.String,
    externalIds: Schema.Array(Schema.String),
    erasedAt: Timestamp,
    recordCount: Schema.Number
  })
).annotations({ identifier: "SubjectErasedEvent" })

/**
 * `legal_document.published`: a new release became current.
 *
 * @example
 * ```ts
 * import { LegalDocumentPublishedEvent } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // Tell the support channel which text users will be asked to accept.
 * const announcement = (body: unknown) => {
 *   const { data } = Schema.decodeUnknownSync(LegalDocumentPublishedEvent)(body)
 *   const effective = data.effectiveDate.toISOString().slice(0, 10)
 *   return { text: `${data.type} ${data.version} is current, effective ${effective}` }
 * }
 * ```
 */
export const LegalDocumentPublishedEvent = envelope("legal_document.published", LegalDocumentRelease).annotations({
  identifier: "LegalDocumentPublishedEvent"
})

/**
 * `log.checkpoint`: the transparency log signed a new checkpoint. A receiver that keeps these
 * copies can later prove any rewrite of the log (docs/transparency-log.md).
 *
 * @example
 * ```ts
 * import { LogCheckpointEvent } from "@svc/schema"
 * import { openNote, parseVerifierKey } from "@svc/schema/transparency"
 * import { Schema } from "effect"
 * import { appendFile } from "node:fs/promises"
 *
 * // A witness keeps every checkpoint whose signature verifies with the key it got out of band.
 * const verifier = parseVerifierKey(process.env.SVC_LOG_VERIFIER_KEY ?? "")
 * const keep = async (body: unknown) => {
 *   const { data } = Schema.decodeUnknownSync(LogCheckpointEvent)(body)
 *   if (verifier === undefined || openNote(data.checkpoint, verifier) === undefined) return
 *   await appendFile("checkpoints.jsonl", JSON.stringify(data) + "\n")
 * }
 * ```
 */
export const LogCheckpointEvent = envelope(
  "log.checkpoint",
  Schema.Struct({
    treeSize: Schema.Number,
    /** Base64 of the root hash (RFC 9162). */
    rootHash: Schema.String,
    /** The signed note: C2SP tlog-checkpoint text and its Ed25519 signature line. */
    checkpoint: Schema.String
  })
).annotations({ identifier: "LogCheckpointEvent" })

/**
 * Any consent event, as sent in a webhook body or a stream message.
 *
 * @example
 * ```ts
 * import { SvcEvent } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A NATS consumer decodes each message once and branches on its type (at least once: dedupe on `id`).
 * const handle = (message: string) => {
 *   const event = Schema.decodeUnknownSync(SvcEvent)(JSON.parse(message))
 *   switch (event.type) {
 *     case "consent.withdrawn":
 *       return `stop ${event.data.withdrawnCategories.join(", ")} for ${event.data.record.principal.subjectId}`
 *     case "subject.erased":
 *       return `delete everything about ${event.data.subjectId}`
 *     default:
 *       return `nothing to do for ${event.type}`
 *   }
 * }
 * ```
 */
export const SvcEvent = Schema.Union(
  ConsentRecordedEvent,
  ConsentWithdrawnEvent,
  SubjectLinkedEvent,
  SubjectErasedEvent,
  LegalDocumentPublishedEvent,
  LogCheckpointEvent
).annotations({ identifier: "SvcEvent" })
export type SvcEvent = typeof SvcEvent.Type
/**
 * Any consent event in its wire form (times as ISO 8601 strings): what `verifyWebhook` of
 * `@svc/client` returns.
 *
 * @example
 * ```ts
 * import { verifyWebhook } from "@svc/client"
 * import type { SvcEventEncoded } from "@svc/schema"
 *
 * const erasedSubject = (event: SvcEventEncoded) =>
 *   event.type === "subject.erased" ? event.data.subjectId : undefined
 *
 * export const POST = async (request: Request) => {
 *   const result = verifyWebhook(await request.text(), request.headers, process.env.CRM_WEBHOOK_SECRET!)
 *   if (!result.ok) return new Response(null, { status: 400 })
 *   const subjectId = erasedSubject(result.event)
 *   if (subjectId !== undefined) console.log(`delete the CRM's data of ${subjectId}`)
 *   return new Response(null, { status: 204 })
 * }
 * ```
 */
export type SvcEventEncoded = typeof SvcEvent.Encoded

// ---- operator routes ---------------------------------------------------------------------------

/**
 * Where one event's delivery to one endpoint stands: waiting for (another) attempt, delivered, or
 * given up after the retry period.
 *
 * @example
 * ```ts
 * import type { DeliveryStatus } from "@svc/schema"
 *
 * // The operator route's query for one status, optionally of one endpoint.
 * const deliveriesUrl = (status: DeliveryStatus, endpoint?: string) => {
 *   const query = new URLSearchParams({ status, ...(endpoint === undefined ? {} : { endpoint }) })
 *   return `https://consent.example.com/events/deliveries?${query}`
 * }
 * ```
 */
export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed").annotations({
  identifier: "DeliveryStatus"
})
export type DeliveryStatus = typeof DeliveryStatus.Type

/**
 * One event's delivery to one endpoint (a webhook id, `nats`, or a custom sink's id).
 *
 * @example
 * ```ts
 * import type { EventDelivery } from "@svc/schema"
 *
 * // The on-call alert for a delivery that was given up.
 * const alertText = (delivery: EventDelivery) =>
 *   `${delivery.eventType} ${delivery.eventId} to ${delivery.endpoint} failed after ${delivery.attempts} attempts` +
 *   ` (last: ${delivery.lastStatus ?? delivery.lastError ?? "no answer"})` +
 *   (delivery.endpointDisabled ? "; the endpoint answered 410 and is disabled" : "")
 * ```
 */
export const EventDelivery = Schema.Struct({
  id: Schema.String,
  eventId: Schema.String,
  eventType: SvcEventType,
  endpoint: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Number,
  nextAttemptAt: Schema.NullOr(Timestamp),
  lastAttemptAt: Schema.NullOr(Timestamp),
  /** The receiver's HTTP status of the last attempt, when it answered. */
  lastStatus: Schema.NullOr(Schema.Number),
  lastError: Schema.NullOr(Schema.String),
  deliveredAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  /** The endpoint answered 410 Gone: nothing is sent to it until a delivery of it is retried. */
  endpointDisabled: Schema.Boolean
}).annotations({ identifier: "EventDelivery" })
export type EventDelivery = typeof EventDelivery.Type

/**
 * `GET /events/deliveries`: deliveries of consent events, newest first.
 *
 * @example
 * ```ts
 * import { EventDeliveryList } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // After the CRM's outage: send every delivery to it that was given up again.
 * const base = "https://consent.example.com"
 * const headers = { authorization: `Bearer ${process.env.SVC_API_KEY}` }
 * const response = await fetch(`${base}/events/deliveries?status=failed&endpoint=crm`, { headers })
 * const { deliveries } = Schema.decodeUnknownSync(EventDeliveryList)(await response.json())
 * for (const delivery of deliveries) {
 *   await fetch(`${base}/events/deliveries/${delivery.id}/retry`, { method: "POST", headers })
 * }
 * ```
 */
export const EventDeliveryList = Schema.Struct({ deliveries: Schema.Array(EventDelivery) }).annotations({
  identifier: "EventDeliveryList"
})
export type EventDeliveryList = typeof EventDeliveryList.Type

/**
 * `/status` `events`: present when any sink is configured.
 *
 * @example
 * ```ts
 * import type { EventDeliveryCounts } from "@svc/schema"
 *
 * // A monitoring probe: nothing given up and no endpoint disabled (no sinks configured is fine too).
 * const eventsHealthy = (events: EventDeliveryCounts | undefined) =>
 *   events === undefined || (events.failed === 0 && events.disabledEndpoints.length === 0)
 * ```
 */
export const EventDeliveryCounts = Schema.Struct({
  pending: Schema.Number,
  failed: Schema.Number,
  disabledEndpoints: Schema.Array(Schema.String)
}).annotations({ identifier: "EventDeliveryCounts" })
export type EventDeliveryCounts = typeof EventDeliveryCounts.Type
