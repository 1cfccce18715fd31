import { SqlClient, SqlSchema } from "@effect/sql"
import { Array, Effect, Schema } from "effect"
import { RecordRow } from "../consents/record-row.js"
import { readInIdChunks } from "../database/id-chunks.js"
import { tenantColumnBesideIds } from "../database/tenant-column.js"

/**
 * SQL of consent records as exported: every column an access request or proof export shows.
 * Scoped to the instance's tenant.
 */
export class ConsentRecordsRepo extends Effect.Service<ConsentRecordsRepo>()("@svc/backend/ConsentRecordsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tenantBesideIds = tenantColumnBesideIds(sql, "c.tenant_id")

    // Every column of the record (what the ledger reads and what only an export shows), so a column
    // added to consents for the ledger reaches the export without a second list to keep in step.
    const columns = sql`c.*, l.version AS legal_version, l.hash AS legal_hash, l.effective_date AS legal_effective_date`
    const fromConsents = sql`FROM svc_consents c LEFT JOIN svc_legal_documents l ON l.id = c.legal_release_id`

    const bySubjectsChunk = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, subjectIds: Schema.Array(Schema.String) }),
      Result: RecordRow,
      execute: ({ subjectIds, tenantId }) =>
        sql`SELECT ${columns} ${fromConsents}
            WHERE ${tenantBesideIds} = ${tenantId} AND c.subject_id IN ${sql.in(subjectIds)}
            ORDER BY c.given_at, c.created_at, c.id`
    })

    /** Every record of the given subjects, oldest act first within each subject. */
    const listBySubjects = (tenantId: string, subjectIds: ReadonlyArray<string>) =>
      Array.isNonEmptyReadonlyArray(subjectIds)
        ? readInIdChunks(subjectIds, (chunk) => bySubjectsChunk({ tenantId, subjectIds: chunk }))
        : Effect.succeed([])

    return { listBySubjects } as const
  })
}) {}
