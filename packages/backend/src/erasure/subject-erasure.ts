import { SqlClient, type SqlError } from "@effect/sql"
import type { ErasureResult } from "@svc/schema"
import { SubjectErasedEvent } from "@svc/schema"
import { Clock, Effect, type ParseResult } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { retryDeadlocks } from "../database/deadlock.js"
import { EventOutbox } from "../events/outbox.js"
import { ErasureKey } from "./keys.js"
import { ErasureRepo } from "./repository.js"

/**
 * Erasure (GDPR Art. 17). In one transaction a subject's personal data goes (its row with the
 * identity link, and from its records the IP, user agent and journey id) and its records stay as
 * anonymous proof under a keyed hash of its id, marked erased. Erasing what is not there answers
 * zero counts, so a retry is harmless.
 */
export class SubjectErasure extends Effect.Service<SubjectErasure>()("@svc/backend/SubjectErasure", {
  dependencies: [ErasureRepo.Default, ErasureKey.Default, EventOutbox.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const sql = yield* SqlClient.SqlClient
    const repo = yield* ErasureRepo
    const keys = yield* ErasureKey
    const outbox = yield* EventOutbox
    const tenantId = config.tenantId ?? ""

    const erase = (
      locate: Effect.Effect<
        ReadonlyArray<{ readonly id: string; readonly verified: number; readonly external_id: string | null }>,
        SqlError.SqlError | ParseResult.ParseError
      >,
      byExternalId: boolean
    ) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const outcome = yield* sql.withTransaction(Effect.gen(function*() {
          const located = yield* locate
          // The subject rows are locked first: a save of the same subject holds its row for its
          // whole transaction (see SubjectsRepo.insertIfAbsent), so the two never interleave.
          const erased: Array<string> = []
          let records = 0
          for (const subject of located) {
            // By external id, only a verified link proves the subject is that user's; an
            // unverified claim on the id is dropped, the subject kept.
            if (byExternalId && Number(subject.verified) !== 1) {
              yield* repo.unlink(tenantId, subject.id, now)
              continue
            }
            const hashedId = yield* keys.hashedId(tenantId, subject.id)
            const kept = yield* repo.anonymise({ tenantId, subjectId: subject.id, hashedId, now })
            records += kept
            yield* repo.deleteSubject(tenantId, subject.id)
            // Its `subject.erased` event commits with the erasure.
            // The subject's delivered events name it and go; undelivered ones still go out, before this one.
            yield* outbox.purgeDelivered(subject.id)
            yield* outbox.append({
              schema: SubjectErasedEvent,
              type: "subject.erased",
              orderKey: subject.id,
              data: {
                subjectId: subject.id,
                externalIds: subject.external_id === null ? [] : [subject.external_id],
                erasedAt: new Date(now),
                recordCount: kept
              }
            })
            erased.push(subject.id)
          }
          return { erased, records }
        })).pipe(retryDeadlocks)
        const result: ErasureResult = {
          erasedAt: new Date(now),
          subjects: outcome.erased.length,
          recordsKeptAsAnonymousProof: outcome.records
        }
        return result
      }).pipe(orDatabaseError)

    /** `DELETE /subjects/:id`. */
    const eraseSubject = (id: string) => erase(repo.lockById({ tenantId, id }), false)

    /** `DELETE /subjects?externalId=`: every subject verifiably linked to the user. */
    const eraseByExternalId = (externalId: string) => erase(repo.lockByExternalId({ tenantId, externalId }), true)

    return { eraseSubject, eraseByExternalId } as const
  })
}) {}
