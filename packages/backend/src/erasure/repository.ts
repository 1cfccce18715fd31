import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { changedRows } from "../database/database-error.js"

const LockedSubject = Schema.Struct({
  id: Schema.String,
  /** SMALLINT 0/1. */
  verified: Schema.Union(Schema.Number, Schema.NumberFromString),
  external_id: Schema.NullOr(Schema.String)
})

/**
 * SQL of erasure. Every statement is scoped to the tenant; the caller runs them in one transaction,
 * and the subject rows are read `FOR UPDATE` (Postgres, MySQL) so a racing erasure or link waits.
 */
export class ErasureRepo extends Effect.Service<ErasureRepo>()("@svc/backend/ErasureRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const forUpdate = sql.literal(sql.onDialectOrElse({ sqlite: () => "", orElse: () => " FOR UPDATE" }))

    const lockById = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.String }),
      Result: LockedSubject,
      execute: ({ id, tenantId }) =>
        sql`SELECT id, verified, external_id FROM svc_subjects WHERE id = ${id} AND tenant_id = ${tenantId}${forUpdate}`
    })

    /** Every subject linked to an external id, verified or not. */
    const lockByExternalId = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, externalId: Schema.String }),
      Result: LockedSubject,
      execute: ({ externalId, tenantId }) =>
        sql`SELECT id, verified, external_id FROM svc_subjects WHERE tenant_id = ${tenantId} AND external_id = ${externalId}
            ORDER BY id${forUpdate}`
    })

    /**
     * Turns a subject's records into anonymous proof: re-keyed to `hashedId`, proof fields and the
     * journey id cleared, the act key replaced by the record's own id (so a new save of the same
     * act starts afresh), the salt of the log's commitment to the personal data dropped (the
     * commitment stays in the log and can no longer be opened), `erased_at` set. Returns the rows changed.
     */
    const anonymise = (input: {
      readonly tenantId: string
      readonly subjectId: string
      readonly hashedId: string
      readonly now: number
    }) =>
      sql`UPDATE svc_consents
          SET subject_id = ${input.hashedId}, act_key = id, ip_address = NULL, user_agent = NULL, journey_id = NULL,
            log_salt = NULL, erased_at = ${input.now}
          WHERE tenant_id = ${input.tenantId} AND subject_id = ${input.subjectId}`.raw.pipe(Effect.map(changedRows))

    const deleteSubject = (tenantId: string, id: string) =>
      sql`DELETE FROM svc_subjects WHERE id = ${id} AND tenant_id = ${tenantId}`.pipe(Effect.asVoid)

    /** Drops an unverified claim on an external id, keeping the subject (it is not proven to be that user's). */
    const unlink = (tenantId: string, id: string, now: number) =>
      sql`UPDATE svc_subjects SET external_id = NULL, identity_provider = NULL, verified = 0, updated_at = ${now}
          WHERE id = ${id} AND tenant_id = ${tenantId}`.pipe(Effect.asVoid)

    return { lockById, lockByExternalId, anonymise, deleteSubject, unlink } as const
  })
}) {}
