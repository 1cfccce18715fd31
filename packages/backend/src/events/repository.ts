import { SqlClient, SqlSchema } from "@effect/sql"
import { DeliveryStatus, SvcEventType } from "@svc/schema"
import { Effect, Schema } from "effect"
import { Millis } from "../database/columns.js"
import { changedRows } from "../database/database-error.js"

const NullMillis = Schema.NullOr(Millis)

/** A claimed delivery with its event. */
export const ClaimedRow = Schema.Struct({
  id: Schema.String,
  endpoint: Schema.String,
  attempts: Schema.Union(Schema.Number, Schema.NumberFromString),
  created_at: Millis,
  event_id: Schema.String,
  event_type: SvcEventType,
  payload: Schema.String
})
export type ClaimedRow = typeof ClaimedRow.Type

export const DeliveryRow = Schema.Struct({
  id: Schema.String,
  endpoint: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Union(Schema.Number, Schema.NumberFromString),
  next_attempt_at: Millis,
  last_attempt_at: NullMillis,
  last_status: Schema.NullOr(Schema.Union(Schema.Number, Schema.NumberFromString)),
  last_error: Schema.NullOr(Schema.String),
  created_at: Millis,
  delivered_at: NullMillis,
  event_id: Schema.String,
  event_type: SvcEventType
})
export type DeliveryRow = typeof DeliveryRow.Type

const Count = Schema.Struct({ n: Schema.Union(Schema.Number, Schema.NumberFromString) })

/** SQL of the event outbox (`svc_events`, `svc_event_deliveries`, `svc_event_endpoints`), scoped by tenant. */
export class EventsRepo extends Effect.Service<EventsRepo>()("@svc/backend/EventsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insertEvent = (row: {
      readonly id: string
      readonly tenantId: string
      readonly type: string
      readonly occurredAt: number
      readonly payload: string
    }) =>
      sql`INSERT INTO svc_events (id, tenant_id, type, occurred_at, payload)
          VALUES (${row.id}, ${row.tenantId}, ${row.type}, ${row.occurredAt}, ${row.payload})`.pipe(Effect.asVoid)

    /** One delivery of a stored event to one endpoint, due at once. */
    const insertDelivery = (row: {
      readonly id: string
      readonly eventId: string
      readonly tenantId: string
      readonly endpoint: string
      readonly orderKey: string
      readonly now: number
    }) =>
      sql`INSERT INTO svc_event_deliveries (id, event_seq, tenant_id, endpoint, order_key, status, attempts,
            next_attempt_at, created_at)
          SELECT ${row.id}, seq, ${row.tenantId}, ${row.endpoint}, ${row.orderKey}, 'pending', 0, ${row.now}, ${row.now}
          FROM svc_events WHERE id = ${row.eventId}`.pipe(Effect.asVoid)

    /**
     * Due deliveries that are not leased, oldest first, and only the first pending one of each
     * endpoint and order key (the subject): a later event waits until the earlier one is settled.
     * The head check is a correlated `MIN` (one probe of the order index per candidate, on every
     * engine); an anti-join (`NOT EXISTS` an earlier pending one) let PostgreSQL, with the fresh
     * statistics of a filling table, compare every pending row with every other: 8 s a round at
     * 2,500 pending deliveries.
     */
    const dueIds = (request: {
      readonly tenantId: string
      readonly endpoints: ReadonlyArray<string>
      readonly now: number
      readonly limit: number
    }) =>
      request.endpoints.length === 0
        ? Effect.succeed<ReadonlyArray<string>>([])
        : sql<{ id: string }>`SELECT d.id FROM svc_event_deliveries d
            WHERE d.tenant_id = ${request.tenantId} AND d.status = 'pending' AND d.next_attempt_at <= ${request.now}
              AND (d.lease_until IS NULL OR d.lease_until <= ${request.now})
              AND ${sql.in("d.endpoint", request.endpoints)}
              AND d.event_seq = (SELECT MIN(p.event_seq) FROM svc_event_deliveries p
                WHERE p.tenant_id = d.tenant_id AND p.endpoint = d.endpoint AND p.order_key = d.order_key
                  AND p.status = 'pending')
            ORDER BY d.event_seq LIMIT ${request.limit}`.pipe(Effect.map((rows) => rows.map((r) => r.id)))

    /**
     * Leases the given deliveries to `claim` unless another replica leased them first (compare
     * and set on the lease, one statement, so no two replicas ever hold one delivery at once).
     */
    const claim = (request: {
      readonly ids: ReadonlyArray<string>
      readonly claim: string
      readonly now: number
      readonly leaseUntil: number
    }) =>
      sql`UPDATE svc_event_deliveries SET claim = ${request.claim}, lease_until = ${request.leaseUntil}
          WHERE ${sql.in("id", request.ids)} AND status = 'pending'
            AND (lease_until IS NULL OR lease_until <= ${request.now})`.raw.pipe(Effect.map(changedRows))

    /** Gives up a claim's leases before they expire (a round that failed after claiming). */
    const release = (claim: string) =>
      sql`UPDATE svc_event_deliveries SET claim = NULL, lease_until = NULL
          WHERE claim = ${claim} AND status = 'pending'`.pipe(Effect.asVoid)

    const claimed = SqlSchema.findAll({
      Request: Schema.String,
      Result: ClaimedRow,
      execute: (token) =>
        sql`SELECT d.id, d.endpoint, d.attempts, d.created_at, e.id AS event_id, e.type AS event_type, e.payload
            FROM svc_event_deliveries d JOIN svc_events e ON e.seq = d.event_seq
            WHERE d.claim = ${token} AND d.status = 'pending' ORDER BY d.event_seq`
    })

    /** Records an attempt's outcome, only while the lease is still this claim's. */
    const settle = (request: {
      readonly id: string
      readonly claim: string
      readonly now: number
      readonly status: "pending" | "delivered" | "failed"
      readonly nextAttemptAt: number
      readonly lastStatus: number | null
      readonly lastError: string | null
      /** `false` for an attempt that was never made (a disabled endpoint): the lease is only released. */
      readonly attempted: boolean
    }) =>
      sql`UPDATE svc_event_deliveries SET status = ${request.status},
            attempts = attempts + ${request.attempted ? 1 : 0}, next_attempt_at = ${request.nextAttemptAt},
            last_attempt_at = ${request.attempted ? request.now : null}, last_status = ${request.lastStatus},
            last_error = ${request.lastError}, delivered_at = ${request.status === "delivered" ? request.now : null},
            claim = NULL, lease_until = NULL
          WHERE id = ${request.id} AND claim = ${request.claim}`.raw.pipe(Effect.map(changedRows))

    const disableEndpoint = (
      request: { readonly tenantId: string; readonly endpoint: string; readonly now: number; readonly reason: string }
    ) => {
      const insert = sql`INTO svc_event_endpoints (tenant_id, endpoint, disabled_at, reason)
        VALUES (${request.tenantId}, ${request.endpoint}, ${request.now}, ${request.reason})`
      return sql.onDialectOrElse({
        mysql: () => sql`INSERT IGNORE ${insert}`,
        orElse: () => sql`INSERT ${insert} ON CONFLICT DO NOTHING`
      }).pipe(Effect.asVoid)
    }

    const enableEndpoint = (request: { readonly tenantId: string; readonly endpoint: string }) =>
      sql`DELETE FROM svc_event_endpoints WHERE tenant_id = ${request.tenantId} AND endpoint = ${request.endpoint}`
        .pipe(
          Effect.asVoid
        )

    const disabledEndpoints = (tenantId: string) =>
      sql<
        { endpoint: string }
      >`SELECT endpoint FROM svc_event_endpoints WHERE tenant_id = ${tenantId} ORDER BY endpoint`.pipe(
        Effect.map((rows) => rows.map((r) => r.endpoint))
      )

    const list = SqlSchema.findAll({
      Request: Schema.Struct({
        tenantId: Schema.String,
        status: Schema.NullOr(Schema.String),
        endpoint: Schema.NullOr(Schema.String),
        limit: Schema.Number
      }),
      Result: DeliveryRow,
      execute: (request) =>
        sql`SELECT d.id, d.endpoint, d.status, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status,
              d.last_error, d.created_at, d.delivered_at, e.id AS event_id, e.type AS event_type
            FROM svc_event_deliveries d JOIN svc_events e ON e.seq = d.event_seq
            WHERE d.tenant_id = ${request.tenantId}
              ${request.status === null ? sql`` : sql`AND d.status = ${request.status}`}
              ${request.endpoint === null ? sql`` : sql`AND d.endpoint = ${request.endpoint}`}
            ORDER BY d.event_seq DESC LIMIT ${request.limit}`
    })

    const findById = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.String }),
      Result: DeliveryRow,
      execute: (request) =>
        sql`SELECT d.id, d.endpoint, d.status, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status,
              d.last_error, d.created_at, d.delivered_at, e.id AS event_id, e.type AS event_type
            FROM svc_event_deliveries d JOIN svc_events e ON e.seq = d.event_seq
            WHERE d.tenant_id = ${request.tenantId} AND d.id = ${request.id}`
    })

    /** Makes a delivery due now (pending again if it had failed); a delivered one is sent again. */
    const retry = (request: { readonly tenantId: string; readonly id: string; readonly now: number }) =>
      sql`UPDATE svc_event_deliveries SET status = 'pending', next_attempt_at = ${request.now}, delivered_at = NULL
          WHERE tenant_id = ${request.tenantId} AND id = ${request.id}`.pipe(Effect.asVoid)

    /**
     * Removes what the outbox still holds of a subject once it is delivered: delivered deliveries
     * of the subject, then its events that no delivery needs any more (erasure; pending ones are
     * still sent, followed by the subject's `subject.erased`).
     */
    const purgeDeliveredOf = (request: { readonly tenantId: string; readonly orderKey: string }) =>
      Effect.gen(function*() {
        const seqs = (yield* sql<{ event_seq: number | string }>`SELECT DISTINCT event_seq FROM svc_event_deliveries
          WHERE tenant_id = ${request.tenantId} AND order_key = ${request.orderKey}`).map((r) => r.event_seq)
        if (seqs.length === 0) return
        yield* sql`DELETE FROM svc_event_deliveries
          WHERE tenant_id = ${request.tenantId} AND order_key = ${request.orderKey} AND status = 'delivered'`
        yield* sql`DELETE FROM svc_events WHERE ${sql.in("seq", seqs)}
          AND NOT EXISTS (SELECT 1 FROM svc_event_deliveries d WHERE d.event_seq = svc_events.seq)`
      })

    /** Drops deliveries delivered before `before`, then events no delivery needs any more. */
    const purgeDelivered = (request: { readonly tenantId: string; readonly before: number }) =>
      Effect.gen(function*() {
        yield* sql`DELETE FROM svc_event_deliveries
          WHERE tenant_id = ${request.tenantId} AND status = 'delivered' AND delivered_at < ${request.before}`
        yield* sql`DELETE FROM svc_events WHERE tenant_id = ${request.tenantId} AND occurred_at < ${request.before}
          AND NOT EXISTS (SELECT 1 FROM svc_event_deliveries d WHERE d.event_seq = svc_events.seq)`
      })

    const counts = (tenantId: string) =>
      Effect.all({
        pending:
          sql`SELECT COUNT(*) AS n FROM svc_event_deliveries WHERE tenant_id = ${tenantId} AND status = 'pending'`,
        failed: sql`SELECT COUNT(*) AS n FROM svc_event_deliveries WHERE tenant_id = ${tenantId} AND status = 'failed'`
      }).pipe(
        Effect.flatMap(({ failed, pending }) =>
          Effect.all({
            pending: Schema.decodeUnknown(Count)(pending[0]),
            failed: Schema.decodeUnknown(Count)(failed[0])
          })
        ),
        Effect.map(({ failed, pending }) => ({ pending: Number(pending.n), failed: Number(failed.n) }))
      )

    return {
      insertEvent,
      insertDelivery,
      dueIds,
      claim,
      release,
      claimed,
      settle,
      disableEndpoint,
      enableEndpoint,
      disabledEndpoints,
      list,
      findById,
      retry,
      purgeDeliveredOf,
      purgeDelivered,
      counts
    } as const
  })
}) {}
