import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ConsentColumns, ConsentRow } from "../consents/repository.js"
import { Millis } from "../database/columns.js"
import { tenantColumnBesideIds } from "../database/tenant-column.js"

const Text = Schema.NullOr(Schema.String)

/** A consent row with everything an export shows: the proof fields and how the act was collected. */
export const RecordRow = Schema.Struct({
  ...ConsentRow.fields,
  ip_address: Text,
  user_agent: Text,
  action: Text,
  surface: Text,
  erased_at: Schema.NullOr(Millis),
  // What an export's transparency-log proofs are made of (`proofs=true`).
  ...ConsentColumns.pick("tenant_id", "log_commitment").fields,
  log_index: Schema.NullOr(Millis)
})
export type RecordRow = typeof RecordRow.Type

/** Most subject ids one statement names (an external id rarely links more). */
const MAX_SUBJECTS_PER_QUERY = 500

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
    const listBySubjects = (tenantId: string, subjectIds: ReadonlyArray<string>) => {
      const chunks: Array<ReadonlyArray<string>> = []
      for (let i = 0; i < subjectIds.length; i += MAX_SUBJECTS_PER_QUERY) {
        chunks.push(subjectIds.slice(i, i + MAX_SUBJECTS_PER_QUERY))
      }
      return Effect.map(
        Effect.forEach(chunks, (chunk) => bySubjectsChunk({ tenantId, subjectIds: chunk })),
        (rows) => rows.flat()
      )
    }

    return { listBySubjects } as const
  })
}) {}
