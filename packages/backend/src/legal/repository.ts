import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Millis } from "../database/columns.js"
import { changedRows } from "../database/database-error.js"

export const ReleaseRow = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  version: Schema.String,
  hash: Schema.String,
  effective_date: Millis,
  created_at: Millis
})
export type ReleaseRow = typeof ReleaseRow.Type

/** SQL of `svc_legal_documents`. Every query is scoped to the instance's tenant (`''` without one). */
export class LegalDocumentsRepo extends Effect.Service<LegalDocumentsRepo>()("@svc/backend/LegalDocumentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findByHash = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, type: Schema.String, hash: Schema.String }),
      Result: ReleaseRow,
      execute: ({ hash, tenantId, type }) =>
        sql`SELECT id, type, version, hash, effective_date, created_at FROM svc_legal_documents
            WHERE tenant_id = ${tenantId} AND type = ${type} AND hash = ${hash}`
    })

    const findById = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, type: Schema.String, id: Schema.String }),
      Result: ReleaseRow,
      execute: ({ id, tenantId, type }) =>
        sql`SELECT id, type, version, hash, effective_date, created_at FROM svc_legal_documents
            WHERE tenant_id = ${tenantId} AND type = ${type} AND id = ${id}`
    })

    /** The current release of a type: the highest publish revision. */
    const findCurrent = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, type: Schema.String }),
      Result: ReleaseRow,
      execute: ({ tenantId, type }) =>
        sql`SELECT id, type, version, hash, effective_date, created_at FROM svc_legal_documents
            WHERE tenant_id = ${tenantId} AND type = ${type}
            ORDER BY revision DESC LIMIT 1`
    })

    /** Every release of a type, the latest publish first. */
    const listByType = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, type: Schema.String }),
      Result: ReleaseRow,
      execute: ({ tenantId, type }) =>
        sql`SELECT id, type, version, hash, effective_date, created_at FROM svc_legal_documents
            WHERE tenant_id = ${tenantId} AND type = ${type}
            ORDER BY revision DESC`
    })

    /** Ids of the current release of every type that has one (one statement, whatever the types). */
    const currentIds = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String, type: Schema.String }),
      execute: (tenantId) =>
        sql`SELECT d.id, d.type FROM svc_legal_documents d
            WHERE d.tenant_id = ${tenantId} AND d.revision = (
              SELECT MAX(m.revision) FROM svc_legal_documents m WHERE m.tenant_id = d.tenant_id AND m.type = d.type
            )`
    })

    /**
     * Inserts a release as the next revision of its type. Returns `false` when nothing was written:
     * the hash is already published, or a concurrent publish took that revision (the caller re-reads).
     */
    const insertNext = (row: {
      readonly id: string
      readonly tenantId: string
      readonly type: string
      readonly version: string
      readonly hash: string
      readonly effectiveDate: number
      readonly createdAt: number
    }) => {
      const columns = sql`(id, tenant_id, type, version, hash, effective_date, created_at, revision)`
      const next = sql`SELECT COALESCE(MAX(revision), 0) + 1 FROM svc_legal_documents
        WHERE tenant_id = ${row.tenantId} AND type = ${row.type}`
      const values =
        sql`${row.id}, ${row.tenantId}, ${row.type}, ${row.version}, ${row.hash}, ${row.effectiveDate}, ${row.createdAt}`
      return sql.onDialectOrElse({
        // MySQL cannot read the target table in a VALUES subquery, and INSERT ... SELECT from it takes
        // locks that deadlock racing publishes: read the next revision first; a racing twin that took
        // it makes this insert a no-op and the caller tries again.
        mysql: () =>
          Effect.flatMap(
            sql<{ next: number | string }>`SELECT COALESCE(MAX(revision), 0) + 1 AS next FROM svc_legal_documents
              WHERE tenant_id = ${row.tenantId} AND type = ${row.type}`,
            (rows) =>
              sql`INSERT IGNORE INTO svc_legal_documents ${columns} VALUES (${values}, ${Number(rows[0]?.next ?? 1)})`
                .raw
          ),
        orElse: () =>
          sql`INSERT INTO svc_legal_documents ${columns} VALUES (${values}, (${next})) ON CONFLICT DO NOTHING`.raw
      }).pipe(Effect.map((raw) => changedRows(raw) === 1))
    }

    return { findByHash, findById, findCurrent, listByType, currentIds, insertNext } as const
  })
}) {}
