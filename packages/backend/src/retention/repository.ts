import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { changedRows } from "../database/database-error.js"
import { tenantColumnBesideIds } from "../database/tenant-column.js"

/** Rows one retention batch touches: small enough that no statement holds its locks for long. */
export const RETENTION_BATCH = 1000

const Row = Schema.Struct({ id: Schema.String, given_at: Schema.Union(Schema.Number, Schema.NumberFromString) })

/** Where the next batch starts: after this `(given_at, id)`. */
export interface BatchCursor {
  readonly givenAt: number
  readonly id: string
}

/**
 * SQL of the retention job. Each kind of work is a keyset walk over `svc_consents_time` (tenant,
 * given_at, id) in batches: read the ids of one batch, then change those rows with a condition
 * that makes the change idempotent, so replicas running the job at once change each row once and
 * count it once (the second writer changes nothing).
 */
export class RetentionRepo extends Effect.Service<RetentionRepo>()("@svc/backend/RetentionRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tenantBesideIds = tenantColumnBesideIds(sql, "tenant_id")

    const conditions = {
      ipAddress: sql`ip_address IS NOT NULL`,
      userAgent: sql`user_agent IS NOT NULL`,
      retire: sql`subject_id <> 'retired' AND subject_id NOT LIKE 'erased%'`,
      expire: sql`type = 'cookie_banner' AND expired_at IS NULL`
    } as const
    type Kind = keyof typeof conditions

    /** The next batch of ids of `kind` given before `cutoff` (optionally of one rule, or of none of `ruleIds`). */
    const batch = (input: {
      readonly tenantId: string
      readonly kind: Kind
      readonly cutoff: number
      readonly after: BatchCursor | undefined
      readonly policy?: { readonly id: string } | { readonly notIn: ReadonlyArray<string> }
    }) => {
      const after = input.after === undefined
        ? sql``
        : sql`AND given_at >= ${input.after.givenAt} AND (given_at > ${input.after.givenAt} OR id > ${input.after.id})`
      const policy = input.policy === undefined
        ? sql``
        : "id" in input.policy
        ? sql`AND policy_id = ${input.policy.id}`
        : input.policy.notIn.length === 0
        ? sql``
        : sql`AND (policy_id IS NULL OR policy_id NOT IN ${sql.in(input.policy.notIn)})`
      return SqlSchema.findAll({
        Request: Schema.Void,
        Result: Row,
        execute: () =>
          sql`SELECT id, given_at FROM svc_consents
              WHERE tenant_id = ${input.tenantId} AND given_at < ${input.cutoff} ${after}
                AND ${conditions[input.kind]} ${policy}
              ORDER BY given_at, id LIMIT ${RETENTION_BATCH}`
      })(undefined)
    }

    // Removing any personal data drops the salt of the log's commitment to it: the commitment
    // stays in the log (so every proof still verifies) and can no longer be opened.
    const changes = {
      ipAddress: () => sql`ip_address = NULL, log_salt = NULL`,
      userAgent: () => sql`user_agent = NULL, log_salt = NULL`,
      // A retired record keeps what proves the act happened (type, domain, time, policy, receipts)
      // and loses everything that leads to a person.
      retire: () =>
        sql`subject_id = 'retired', act_key = id, ip_address = NULL, user_agent = NULL, journey_id = NULL,
        log_salt = NULL`,
      expire: (now: number) => sql`expired_at = ${now}`
    } as const

    /** Applies `kind` to the ids still matching it; returns the rows changed. */
    const apply = (tenantId: string, kind: Kind, ids: ReadonlyArray<string>, now: number) =>
      ids.length === 0
        ? Effect.succeed(0)
        : sql`UPDATE svc_consents SET ${changes[kind](now)}
              WHERE ${tenantBesideIds} = ${tenantId} AND id IN ${sql.in(ids)} AND ${conditions[kind]}`.raw.pipe(
          Effect.map(changedRows)
        )

    const noRecord =
      sql`NOT EXISTS (SELECT 1 FROM svc_consents c WHERE c.subject_id = s.id AND c.tenant_id = s.tenant_id)`
    const forUpdate = sql.literal(sql.onDialectOrElse({ sqlite: () => "", orElse: () => " FOR UPDATE" }))

    /**
     * The next batch of idle subjects after `after` (by id): no identity link and no record left
     * under their id (retired, erased or never saved), so the row is an identifier with no purpose.
     */
    const idleSubjects = (input: { readonly tenantId: string; readonly after: string | undefined }) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: Schema.Struct({ id: Schema.String }),
        execute: () =>
          sql`SELECT s.id FROM svc_subjects s
              WHERE s.tenant_id = ${input.tenantId} AND s.external_id IS NULL
                ${input.after === undefined ? sql`` : sql`AND s.id > ${input.after}`} AND ${noRecord}
              ORDER BY s.id LIMIT ${RETENTION_BATCH}`
      })(undefined)

    /**
     * Deletes the subjects of `ids` that are still idle; returns how many went. The rows are locked
     * first (Postgres, MySQL), so a save of one of them that is under way is waited for, and the
     * delete then sees its record and keeps the subject; a save that comes after waits for the
     * delete and creates the subject afresh. The caller runs it in a transaction.
     */
    const deleteIdle = (tenantId: string, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(0)
        : sql`SELECT id FROM svc_subjects WHERE ${tenantBesideIds} = ${tenantId} AND id IN ${
          sql.in(ids)
        } ORDER BY id${forUpdate}`.pipe(
          Effect.zipRight(
            sql`DELETE FROM svc_subjects
                WHERE ${tenantBesideIds} = ${tenantId} AND id IN ${sql.in(ids)} AND external_id IS NULL
                  AND NOT EXISTS (SELECT 1 FROM svc_consents c WHERE c.subject_id = svc_subjects.id
                    AND c.tenant_id = svc_subjects.tenant_id)`.raw
          ),
          Effect.map(changedRows)
        )

    return { batch, apply, idleSubjects, deleteIdle } as const
  })
}) {}
