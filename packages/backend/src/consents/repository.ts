import { SqlClient, type SqlError, SqlSchema } from "@effect/sql"
import { type Array, Effect, Option, type ParseResult, Schema } from "effect"
import { compileRowDecoder } from "../codec/compiled.js"
import { Millis } from "../database/columns.js"
import { changedRows } from "../database/database-error.js"
import { readInIdChunks } from "../database/id-chunks.js"
import { decodedNow, findAll } from "../database/rows.js"
import { tenantColumnBesideIds } from "../database/tenant-column.js"
import {
  type NewSubject,
  pgInsertSubjectIfAbsent,
  SubjectColumnsBeside,
  type SubjectRow
} from "../identity/subjects-repository.js"

const Text = Schema.NullOr(Schema.String)

/** Every column of `svc_consents`, as written and as the drivers read it back. */
export const ConsentColumns = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  subject_id: Schema.String,
  act_key: Schema.String,
  act_digest: Schema.String,
  type: Schema.String,
  domain: Schema.String,
  given_at: Millis,
  created_at: Millis,
  /** JSON text, like `receipts`, `vendor_choice` and `gpc`. */
  preferences: Text,
  receipts: Text,
  vendor_choice: Text,
  policy_id: Text,
  policy_fingerprint: Text,
  runtime_policy_source: Text,
  legal_release_id: Text,
  ip_address: Text,
  user_agent: Text,
  journey_id: Text,
  experiment_id: Text,
  experiment_arm: Text,
  action: Text,
  surface: Text,
  time_to_decision_ms: Schema.NullOr(Schema.Number),
  gpc: Text,
  gpp_string: Text,
  gpp_section_ids: Text,
  tc_string: Text,
  /** ISO 3166-1 alpha-2, from the request's location headers; not personal, kept on erasure. */
  country: Text,
  /** The transparency log's salted commitment to the personal data, and its salt (base64). */
  log_commitment: Text,
  log_salt: Text
})
export type ConsentColumns = typeof ConsentColumns.Type

/** A consent row as read back: the columns a record shows, with the legal release it names (if any). */
export const ConsentRow = Schema.Struct({
  ...ConsentColumns.pick(
    "id",
    "subject_id",
    "act_digest",
    "type",
    "domain",
    "given_at",
    "created_at",
    "preferences",
    "receipts",
    "vendor_choice",
    "policy_id",
    "policy_fingerprint",
    "runtime_policy_source",
    "legal_release_id",
    "journey_id",
    "gpc",
    "gpp_string",
    "gpp_section_ids",
    "tc_string"
  ).fields,
  legal_version: Text,
  legal_hash: Text,
  legal_effective_date: Schema.NullOr(Millis)
})
export type ConsentRow = typeof ConsentRow.Type

/** The columns an act's insert writes, in the order of `actValues`. */
const consentInsertColumnList = `id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at, created_at,
  preferences, receipts, vendor_choice, policy_id, policy_fingerprint, runtime_policy_source, legal_release_id,
  ip_address, user_agent, journey_id, experiment_id, experiment_arm, action, surface, time_to_decision_ms, gpc,
  gpp_string, gpp_section_ids, tc_string, country, log_commitment, log_salt`

/** The columns of the legal release a consent row carries, from `svc_legal_documents l`. */
const releaseColumns: Readonly<Record<string, string>> = {
  legal_version: "l.version",
  legal_hash: "l.hash",
  legal_effective_date: "l.effective_date"
}

/** `ConsentRow`'s columns in the order statements select them, and the select list that names them. */
const consentRowColumns = Object.keys(ConsentRow.fields)
const consentRowSelect = consentRowColumns.map((name) => {
  const release = releaseColumns[name]
  return release === undefined ? `c.${name}` : `${release} AS ${name}`
}).join(", ")

/**
 * A subject's row and its consents in one row each (`svc_subjects s` beside the consent's columns).
 * The subject's columns come first, so a row of them alone decodes the same way.
 */
const subjectColumns = Object.keys(SubjectColumnsBeside.fields)
const subjectConsentColumns = [...subjectColumns, ...consentRowColumns]
const subjectSelect = subjectColumns.map((name) => `s.${name.slice("subject_".length)} AS ${name}`).join(", ")
const subjectConsentSelect = `${subjectSelect}, ${consentRowSelect}`

/** The read-back row of an act just written, without reading it: its columns and its legal release. */
export const consentRowOf = (
  row: ConsentColumns,
  release: { readonly version: string; readonly hash: string; readonly effective_date: number } | null
): ConsentRow => ({
  // The columns a record shows, named one by one: a spread would copy all of the row's 31.
  id: row.id,
  subject_id: row.subject_id,
  act_digest: row.act_digest,
  type: row.type,
  domain: row.domain,
  given_at: row.given_at,
  created_at: row.created_at,
  preferences: row.preferences,
  receipts: row.receipts,
  vendor_choice: row.vendor_choice,
  policy_id: row.policy_id,
  policy_fingerprint: row.policy_fingerprint,
  runtime_policy_source: row.runtime_policy_source,
  legal_release_id: row.legal_release_id,
  journey_id: row.journey_id,
  gpc: row.gpc,
  gpp_string: row.gpp_string,
  gpp_section_ids: row.gpp_section_ids,
  tc_string: row.tc_string,
  legal_version: release?.version ?? null,
  legal_hash: release?.hash ?? null,
  legal_effective_date: release?.effective_date ?? null
})

/** SQL of `svc_consents`. Every query is scoped to the instance's tenant (`''` without one). */
export class ConsentsRepo extends Effect.Service<ConsentsRepo>()("@svc/backend/ConsentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const columns = sql.literal(consentRowSelect)
    const consentInsertColumns = sql.literal(consentInsertColumnList)
    const fromConsents = sql`FROM svc_consents c LEFT JOIN svc_legal_documents l ON l.id = c.legal_release_id`
    const order = sql`ORDER BY c.given_at, c.created_at, c.id`

    /**
     * The consents of the subjects verifiably linked to an external id: the subjects come from
     * their external-id index (`svc_subjects_external`), then their consents from `subject_id`'s.
     * Written as a join, SQLite (no statistics) started from the tenant's time index and read
     * every consent of the tenant (~110 ms for 200,000, event loop blocked); hence the subquery
     * and `+c.tenant_id` on SQLite (`tenant-column.ts`). A subject id is a primary key, so each
     * consent matches at most once, as with the join.
     */
    const ofVerifiedExternalId = (tenantId: string, externalId: string) =>
      sql`c.subject_id IN (SELECT s.id FROM svc_subjects s
            WHERE s.tenant_id = ${tenantId} AND s.external_id = ${externalId} AND s.verified = 1)
          AND ${tenantColumnBesideIds(sql, "c.tenant_id")} = ${tenantId}`

    /** The act's values, in the order of `consentInsertColumns`. */
    const actValues = (row: ConsentColumns) =>
      sql`${row.id}, ${row.tenant_id}, ${row.subject_id}, ${row.act_key}, ${row.act_digest}, ${row.type},
        ${row.domain}, ${row.given_at}, ${row.created_at}, ${row.preferences}, ${row.receipts}, ${row.vendor_choice},
        ${row.policy_id}, ${row.policy_fingerprint}, ${row.runtime_policy_source}, ${row.legal_release_id},
        ${row.ip_address}, ${row.user_agent}, ${row.journey_id}, ${row.experiment_id}, ${row.experiment_arm},
        ${row.action}, ${row.surface}, ${row.time_to_decision_ms}, ${row.gpc}, ${row.gpp_string},
        ${row.gpp_section_ids}, ${row.tc_string}, ${row.country}, ${row.log_commitment}, ${row.log_salt}`

    /**
     * Writes the act unless one with the same `act_key` exists (a replay or a racing twin):
     * `ON CONFLICT DO NOTHING` / `INSERT IGNORE`, so no unique violation is ever raised.
     * Returns whether this call stored it.
     */
    const insertIfAbsent = (row: ConsentColumns) => {
      const insert = sql`INTO svc_consents (${consentInsertColumns}) VALUES (${actValues(row)})`
      return sql.onDialectOrElse({
        mysql: () => sql`INSERT IGNORE ${insert}`.raw,
        orElse: () => sql`INSERT ${insert} ON CONFLICT DO NOTHING`.raw
      }).pipe(Effect.map((raw) => changedRows(raw) === 1))
    }

    /**
     * PostgreSQL only: a save's subject and act in one statement, atomic by itself, so a save
     * that writes nothing else needs no transaction: one round trip where BEGIN, two inserts and
     * COMMIT took four. `s` inserts the subject unless its id exists, and otherwise holds its
     * row locked to the statement's end, as `SubjectsRepo.insertIfAbsent` does; `o` is the id's
     * tenant as the statement's snapshot sees it; `c` inserts the act unless its key exists, and
     * only when `s` created the subject or `o` is this tenant (another tenant's id gets nothing).
     *
     * A subject that another transaction committed while `s` waited for it is locked by `s` but
     * not in the snapshot, so `o` is empty: the outcome is unknown and nothing was written. The
     * statement then runs again, and sees that row (READ COMMITTED: a snapshot per statement).
     */
    const insertWithSubject = (subject: NewSubject, row: ConsentColumns): Effect.Effect<
      { readonly created: boolean; readonly stored: boolean } | "another tenant's subject",
      SqlError.SqlError
    > => {
      const statement = sql<{ readonly created: boolean; readonly owner: string | null; readonly stored: boolean }>`
        WITH s AS (${pgInsertSubjectIfAbsent(sql, subject)} RETURNING 1),
          o AS (SELECT tenant_id FROM svc_subjects WHERE id = ${subject.id}),
          c AS (INSERT INTO svc_consents (${consentInsertColumns}) SELECT ${actValues(row)}
            WHERE EXISTS (SELECT 1 FROM s) OR EXISTS (SELECT 1 FROM o WHERE tenant_id = ${subject.tenantId})
            ON CONFLICT DO NOTHING RETURNING 1)
        SELECT EXISTS (SELECT 1 FROM s) AS created, (SELECT tenant_id FROM o) AS owner,
          EXISTS (SELECT 1 FROM c) AS stored`
      const attempt = (tries: number): Effect.Effect<
        { readonly created: boolean; readonly stored: boolean } | "another tenant's subject",
        SqlError.SqlError
      > =>
        Effect.flatMap(statement, ([outcome]) => {
          if (outcome === undefined) return Effect.dieMessage("the save's statement answered no row")
          if (outcome.created || outcome.owner === subject.tenantId) {
            return Effect.succeed({ created: outcome.created, stored: outcome.stored })
          }
          if (outcome.owner !== null) return Effect.succeed("another tenant's subject" as const)
          // Each run sees every row committed before it began; a third miss is not a race.
          return tries < 3
            ? attempt(tries + 1)
            : Effect.dieMessage("the subject of a save stays locked yet unseen by its statement")
        })
      return attempt(1)
    }

    const findByActKey = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, actKey: Schema.String }),
      Result: ConsentRow,
      execute: ({ actKey, tenantId }) =>
        sql`SELECT ${columns} ${fromConsents} WHERE c.act_key = ${actKey} AND c.tenant_id = ${tenantId}`
    })

    /** Every consent of one subject, oldest act first. */
    const listBySubject = findAll({
      Request: Schema.Struct({ tenantId: Schema.String, subjectId: Schema.String }),
      Result: ConsentRow,
      execute: ({ subjectId, tenantId }) =>
        sql`SELECT ${columns} ${fromConsents} WHERE c.subject_id = ${subjectId} AND c.tenant_id = ${tenantId} ${order}`
    })

    const listByChunkOfSubjects = findAll({
      Request: Schema.Struct({ tenantId: Schema.String, subjectIds: Schema.NonEmptyArray(Schema.String) }),
      Result: ConsentRow,
      execute: ({ subjectIds, tenantId }) =>
        sql`SELECT ${columns} ${fromConsents} WHERE c.subject_id IN ${sql.in(subjectIds)}
            AND ${tenantColumnBesideIds(sql, "c.tenant_id")} = ${tenantId} ${order}`
    })

    /**
     * Every consent of some subjects of the tenant (those an external id's verified links name,
     * read just before), each subject's oldest act first. Their ids are given, not a subquery:
     * MariaDB would read the subjects first and sort the joined rows through a temporary table, on
     * disk for these text columns (~350 µs of its CPU a read against ~70).
     */
    const listBySubjects = (
      request: { readonly tenantId: string; readonly subjectIds: Array.NonEmptyReadonlyArray<string> }
    ): Effect.Effect<ReadonlyArray<ConsentRow>, SqlError.SqlError | ParseResult.ParseError> =>
      readInIdChunks(
        request.subjectIds,
        (subjectIds) => listByChunkOfSubjects({ tenantId: request.tenantId, subjectIds })
      )

    /**
     * The consents of the given types across the subjects verifiably linked to an external id, in
     * no particular order: the check asks only whether one exists and which policy it is on, and an
     * `ORDER BY` would make MariaDB sort the subjects' joined rows through a temporary table.
     */
    const listTypesByVerifiedExternalId = findAll({
      Request: Schema.Struct({
        tenantId: Schema.String,
        externalId: Schema.String,
        types: Schema.Array(Schema.String)
      }),
      Result: ConsentRow,
      execute: ({ externalId, tenantId, types }) =>
        sql`SELECT ${columns} ${fromConsents} WHERE ${ofVerifiedExternalId(tenantId, externalId)}
            AND c.type IN ${sql.in(types)} AND c.expired_at IS NULL`
    })

    const decodeSubject = compileRowDecoder(SubjectColumnsBeside, subjectColumns)
    const decodeConsent = compileRowDecoder(ConsentRow, subjectConsentColumns)
    const subjectRow = (tenantId: string, id: string, row: ReadonlyArray<unknown>): SubjectRow => {
      const columns = decodeSubject(row)
      return {
        id,
        tenant_id: tenantId,
        external_id: columns.subject_external_id,
        identity_provider: columns.subject_identity_provider,
        verified: columns.subject_verified,
        created_at: columns.subject_created_at
      }
    }

    /** A subject's row without its consents (`subjectSelect`'s columns). */
    const subjectAlone = (tenantId: string, id: string) =>
      sql`SELECT ${sql.literal(subjectSelect)} FROM svc_subjects s WHERE s.id = ${id} AND s.tenant_id = ${tenantId}`

    /**
     * A subject and every consent of it, oldest act first: one statement, the subject's row joined
     * with its consents, read as arrays of values (which the drivers make at about half the cost of
     * objects); a second, the subject alone, only when that finds no row (a subject whose consents
     * are all gone, or no such subject: `None`). An inner join, not a `LEFT JOIN`: MariaDB sorts an
     * outer join's rows through a temporary table, on disk when they hold text columns as these
     * do (~280 µs of its CPU per read against ~70 µs).
     */
    const findSubjectWithConsents = (
      tenantId: string,
      id: string
    ): Effect.Effect<
      Option.Option<{ readonly subject: SubjectRow; readonly consents: ReadonlyArray<ConsentRow> }>,
      SqlError.SqlError | ParseResult.ParseError
    > =>
      Effect.flatMap(
        sql`SELECT ${sql.literal(subjectConsentSelect)}
            FROM svc_subjects s
            JOIN svc_consents c ON c.subject_id = ${id} AND c.tenant_id = ${tenantId}
            LEFT JOIN svc_legal_documents l ON l.id = c.legal_release_id
            WHERE s.id = ${id} AND s.tenant_id = ${tenantId} ${order}`.values,
        (rows) => {
          const first = rows[0]
          if (first !== undefined) {
            return decodedNow(() =>
              Option.some({ subject: subjectRow(tenantId, id, first), consents: rows.map(decodeConsent) })
            )
          }
          return Effect.flatMap(
            subjectAlone(tenantId, id).values,
            ([alone]) =>
              alone === undefined
                ? Effect.succeed(Option.none())
                : decodedNow(() => Option.some({ subject: subjectRow(tenantId, id, alone), consents: [] }))
          )
        }
      )

    return {
      insertIfAbsent,
      insertWithSubject,
      findByActKey,
      listBySubject,
      findSubjectWithConsents,
      listBySubjects,
      listTypesByVerifiedExternalId
    } as const
  })
}) {}
