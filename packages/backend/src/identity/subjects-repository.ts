import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Millis } from "../database/columns.js"
import { changedRows } from "../database/database-error.js"

export const SubjectRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  external_id: Schema.NullOr(Schema.String),
  identity_provider: Schema.NullOr(Schema.String),
  /** SMALLINT 0/1 (SQLite cannot bind booleans). */
  verified: Schema.Union(Schema.Number, Schema.NumberFromString),
  created_at: Millis
})
export type SubjectRow = typeof SubjectRow.Type

/**
 * A subject's columns as a statement that joins another table beside `svc_subjects` names them
 * (`s.external_id AS subject_external_id`, ...): the codecs of `SubjectRow`'s own columns.
 */
export const SubjectColumnsBeside = Schema.Struct({
  subject_external_id: SubjectRow.fields.external_id,
  subject_identity_provider: SubjectRow.fields.identity_provider,
  subject_verified: SubjectRow.fields.verified,
  subject_created_at: SubjectRow.fields.created_at
})

export interface IdentityLink {
  readonly externalId: string
  readonly identityProvider: string
  readonly verified: boolean
}

/** A subject a save creates unless its id exists. */
export interface NewSubject {
  readonly id: string
  readonly tenantId: string
  readonly link: IdentityLink | null
  readonly now: number
}

const subjectInto = (sql: SqlClient.SqlClient, row: NewSubject) =>
  sql`INTO svc_subjects (id, tenant_id, external_id, identity_provider, verified, created_at, updated_at)
    VALUES (${row.id}, ${row.tenantId}, ${row.link?.externalId ?? null}, ${row.link?.identityProvider ?? null},
      ${row.link?.verified === true ? 1 : 0}, ${row.now}, ${row.now})`

/**
 * PostgreSQL's insert of a subject unless its id exists (in any tenant), which locks an existing
 * row without writing it (`DO UPDATE ... WHERE FALSE`) until the statement's transaction ends:
 * `SubjectsRepo.insertIfAbsent`'s, and the first part of the save's one statement
 * (`ConsentsRepo.insertWithSubject`).
 */
export const pgInsertSubjectIfAbsent = (sql: SqlClient.SqlClient, row: NewSubject) =>
  sql`INSERT ${subjectInto(sql, row)} ON CONFLICT (id) DO UPDATE SET updated_at = svc_subjects.updated_at WHERE FALSE`

/**
 * SQL of `svc_subjects`. Reads are scoped to the instance's tenant, except `ownerOf`, which
 * exists to find another tenant's claim on a subject id (ids are unique across the database).
 */
export class SubjectsRepo extends Effect.Service<SubjectsRepo>()("@svc/backend/SubjectsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Creates the subject unless its id exists (in any tenant). Returns whether this call created it. */
    const insertIfAbsent = (row: NewSubject) => {
      // An existing row stays locked until the caller's transaction ends, so an erasure of the
      // subject waits for the save (MySQL's INSERT IGNORE takes a shared lock on the duplicate
      // already; Postgres' DO NOTHING takes none, DO UPDATE ... WHERE FALSE locks without writing).
      return sql.onDialectOrElse({
        mysql: () => sql`INSERT IGNORE ${subjectInto(sql, row)}`.raw,
        pg: () => pgInsertSubjectIfAbsent(sql, row).raw,
        orElse: () => sql`INSERT ${subjectInto(sql, row)} ON CONFLICT DO NOTHING`.raw
      }).pipe(Effect.map((raw) => changedRows(raw) === 1))
    }

    /** The tenant holding a subject id, whichever it is. */
    const ownerOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ tenant_id: Schema.String }),
      execute: (id) => sql`SELECT tenant_id FROM svc_subjects WHERE id = ${id}`
    })

    const findById = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, id: Schema.String }),
      Result: SubjectRow,
      execute: ({ id, tenantId }) =>
        sql`SELECT id, tenant_id, external_id, identity_provider, verified, created_at FROM svc_subjects
            WHERE id = ${id} AND tenant_id = ${tenantId}`
    })

    const listVerifiedByExternalId = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, externalId: Schema.String }),
      Result: SubjectRow,
      execute: ({ externalId, tenantId }) =>
        sql`SELECT id, tenant_id, external_id, identity_provider, verified, created_at FROM svc_subjects
            WHERE tenant_id = ${tenantId} AND external_id = ${externalId} AND verified = 1
            ORDER BY created_at, id`
    })

    /**
     * Writes a link only if the subject's link is still what the caller decided on (compare and
     * set), so two racing PATCHes cannot both win. Returns whether the row changed.
     */
    const setLink = (update: {
      readonly tenantId: string
      readonly id: string
      readonly expected: {
        readonly externalId: string | null
        readonly identityProvider: string | null
        readonly verified: boolean
      }
      readonly link: IdentityLink
      readonly now: number
    }) => {
      const { expected, link } = update
      const sameExternal = expected.externalId === null
        ? sql`external_id IS NULL`
        : sql`external_id = ${expected.externalId}`
      const sameProvider = expected.identityProvider === null
        ? sql`identity_provider IS NULL`
        : sql`identity_provider = ${expected.identityProvider}`
      return sql`UPDATE svc_subjects
          SET external_id = ${link.externalId}, identity_provider = ${link.identityProvider},
            verified = ${link.verified ? 1 : 0}, updated_at = ${update.now}
          WHERE id = ${update.id} AND tenant_id = ${update.tenantId} AND ${sameExternal} AND ${sameProvider}
            AND verified = ${expected.verified ? 1 : 0}`.raw.pipe(Effect.map((raw) => changedRows(raw) === 1))
    }

    return { insertIfAbsent, ownerOf, findById, listVerifiedByExternalId, setLink } as const
  })
}) {}
