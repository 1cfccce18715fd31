import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Millis } from "../database/columns.js"
import { changedRows } from "../database/database-error.js"

const Text = Schema.NullOr(Schema.String)

/** A consent row as read back, with the legal release it names (if any). */
export const ConsentRow = Schema.Struct({
  id: Schema.String,
  subject_id: Schema.String,
  act_digest: Schema.String,
  type: Schema.String,
  domain: Schema.String,
  given_at: Millis,
  created_at: Millis,
  preferences: Text,
  receipts: Text,
  vendor_choice: Text,
  policy_id: Text,
  policy_fingerprint: Text,
  runtime_policy_source: Text,
  legal_release_id: Text,
  journey_id: Text,
  legal_version: Text,
  legal_hash: Text,
  legal_effective_date: Schema.NullOr(Millis),
  gpc: Text,
  gpp_string: Text,
  gpp_section_ids: Text,
  tc_string: Text
})
export type ConsentRow = typeof ConsentRow.Type

/** A consent row as written. Booleans and times are already numbers, JSON already text. */
export interface NewConsentRow {
  readonly id: string
  readonly tenantId: string
  readonly subjectId: string
  readonly actKey: string
  readonly actDigest: string
  readonly type: string
  readonly domain: string
  readonly givenAt: number
  readonly createdAt: number
  readonly preferences: string | null
  readonly receipts: string
  readonly vendorChoice: string | null
  readonly policyId: string | null
  readonly policyFingerprint: string | null
  readonly runtimePolicySource: string | null
  readonly legalReleaseId: string | null
  readonly ipAddress: string | null
  readonly userAgent: string | null
  readonly journeyId: string | null
  readonly experimentId: string | null
  readonly experimentArm: string | null
  readonly action: string | null
  readonly surface: string | null
  readonly timeToDecisionMs: number | null
  readonly gpc: string | null
  readonly gppString: string | null
  readonly gppSectionIds: string | null
  readonly tcString: string | null
  /** ISO 3166-1 alpha-2, from the request's location headers; not personal, kept on erasure. */
  readonly country: string | null
}

/** SQL of `svc_consents`. Every query is scoped to the instance's tenant (`''` without one). */
export class ConsentsRepo extends Effect.Service<ConsentsRepo>()("@svc/backend/ConsentsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const columns = sql`c.id, c.subject_id, c.act_digest, c.type, c.domain, c.given_at, c.created_at, c.preferences,
      c.receipts, c.vendor_choice, c.policy_id, c.policy_fingerprint, c.runtime_policy_source, c.legal_release_id,
      c.journey_id, l.version AS legal_version, l.hash AS legal_hash, l.effective_date AS legal_effective_date, c.gpc,
      c.gpp_string, c.gpp_section_ids, c.tc_string`
    const fromConsents = sql`FROM svc_consents c LEFT JOIN svc_legal_documents l ON l.id = c.legal_release_id`
    const order = sql`ORDER BY c.given_at, c.created_at, c.id`

    /**
     * Writes the act unless one with the same `act_key` exists (a replay or a racing twin):
     * `ON CONFLICT DO NOTHING` / `INSERT IGNORE`, so no unique violation is ever raised.
     * Returns whether this call stored it.
     */
    const insertIfAbsent = (row: NewConsentRow) => {
      const insert = sql`INTO svc_consents (id, tenant_id, subject_id, act_key, act_digest, type, domain, given_at,
          created_at, preferences, receipts, vendor_choice, policy_id, policy_fingerprint, runtime_policy_source,
          legal_release_id, ip_address, user_agent, journey_id, experiment_id, experiment_arm, action, surface,
          time_to_decision_ms, gpc, gpp_string, gpp_section_ids, tc_string, country)
        VALUES (${row.id}, ${row.tenantId}, ${row.subjectId}, ${row.actKey}, ${row.actDigest}, ${row.type}, ${row.domain},
          ${row.givenAt}, ${row.createdAt}, ${row.preferences}, ${row.receipts}, ${row.vendorChoice}, ${row.policyId},
          ${row.policyFingerprint}, ${row.runtimePolicySource}, ${row.legalReleaseId}, ${row.ipAddress}, ${row.userAgent},
          ${row.journeyId}, ${row.experimentId}, ${row.experimentArm}, ${row.action}, ${row.surface},
          ${row.timeToDecisionMs}, ${row.gpc}, ${row.gppString}, ${row.gppSectionIds}, ${row.tcString},
          ${row.country})`
      return sql.onDialectOrElse({
        mysql: () => sql`INSERT IGNORE ${insert}`.raw,
        orElse: () => sql`INSERT ${insert} ON CONFLICT DO NOTHING`.raw
      }).pipe(Effect.map((raw) => changedRows(raw) === 1))
    }

    const findByActKey = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, actKey: Schema.String }),
      Result: ConsentRow,
      execute: ({ actKey, tenantId }) =>
        sql`SELECT ${columns} ${fromConsents} WHERE c.act_key = ${actKey} AND c.tenant_id = ${tenantId}`
    })

    /** Every consent of one subject, oldest act first. */
    const listBySubject = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, subjectId: Schema.String }),
      Result: ConsentRow,
      execute: ({ subjectId, tenantId }) =>
        sql`SELECT ${columns} ${fromConsents} WHERE c.subject_id = ${subjectId} AND c.tenant_id = ${tenantId} ${order}`
    })

    /** Every consent of the subjects verifiably linked to an external id, oldest act first. */
    const listByVerifiedExternalId = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, externalId: Schema.String }),
      Result: ConsentRow,
      execute: ({ externalId, tenantId }) =>
        sql`SELECT ${columns} ${fromConsents}
            JOIN svc_subjects s ON s.id = c.subject_id AND s.tenant_id = c.tenant_id
            WHERE c.tenant_id = ${tenantId} AND s.external_id = ${externalId} AND s.verified = 1 ${order}`
    })

    /** Consents of the given types across the subjects verifiably linked to an external id. */
    const listTypesByVerifiedExternalId = SqlSchema.findAll({
      Request: Schema.Struct({
        tenantId: Schema.String,
        externalId: Schema.String,
        types: Schema.Array(Schema.String)
      }),
      Result: ConsentRow,
      execute: ({ externalId, tenantId, types }) =>
        sql`SELECT ${columns} ${fromConsents}
            JOIN svc_subjects s ON s.id = c.subject_id AND s.tenant_id = c.tenant_id
            WHERE c.tenant_id = ${tenantId} AND s.external_id = ${externalId} AND s.verified = 1
              AND c.type IN ${sql.in(types)} AND c.expired_at IS NULL ${order}`
    })

    return {
      insertIfAbsent,
      findByActKey,
      listBySubject,
      listByVerifiedExternalId,
      listTypesByVerifiedExternalId
    } as const
  })
}) {}
