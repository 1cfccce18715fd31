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

/** `consent.recorded`: a stored act (never an idempotent replay), as the export's 27560 record. */
export const ConsentRecordedEvent = envelope("consent.recorded", StandardConsentRecord).annotations({
  identifier: "ConsentRecordedEvent"
})

/**
 * `consent.withdrawn`: an act that turns off a category or vendor grant that the subject's
 * previous act of the same type and domain had on. Sent beside that act's `consent.recorded`.
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

/** `subject.linked`: a subject's identity link was set or changed (`PATCH /subjects/:id`). */
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

/** `legal_document.published`: a new release became current. */
export const LegalDocumentPublishedEvent = envelope("legal_document.published", LegalDocumentRelease).annotations({
  identifier: "LegalDocumentPublishedEvent"
})

/**
 * `log.checkpoint`: the transparency log signed a new checkpoint. A receiver that keeps these
 * copies can later prove any rewrite of the log (docs/transparency-log.md).
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

/** Any consent event, as sent in a webhook body or a stream message. */
export const SvcEvent = Schema.Union(
  ConsentRecordedEvent,
  ConsentWithdrawnEvent,
  SubjectLinkedEvent,
  SubjectErasedEvent,
  LegalDocumentPublishedEvent,
  LogCheckpointEvent
).annotations({ identifier: "SvcEvent" })
export type SvcEvent = typeof SvcEvent.Type
export type SvcEventEncoded = typeof SvcEvent.Encoded

// ---- operator routes ---------------------------------------------------------------------------

export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed").annotations({
  identifier: "DeliveryStatus"
})
export type DeliveryStatus = typeof DeliveryStatus.Type

/** One event's delivery to one endpoint (a webhook id, `nats`, or a custom sink's id). */
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

export const EventDeliveryList = Schema.Struct({ deliveries: Schema.Array(EventDelivery) }).annotations({
  identifier: "EventDeliveryList"
})
export type EventDeliveryList = typeof EventDeliveryList.Type

/** `/status` `events`: present when any sink is configured. */
export const EventDeliveryCounts = Schema.Struct({
  pending: Schema.Number,
  failed: Schema.Number,
  disabledEndpoints: Schema.Array(Schema.String)
}).annotations({ identifier: "EventDeliveryCounts" })
export type EventDeliveryCounts = typeof EventDeliveryCounts.Type
