import { NotFound } from "@svc/api"
import type { IdentityLinkRecord, SubjectExport } from "@svc/schema"
import { Clock, Effect, Option } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { ErasureKey } from "../erasure/keys.js"
import { PolicyManifest } from "../policy/manifest.js"
import { SubjectsRepo, type SubjectRow } from "../identity/subjects-repository.js"
import { ConsentRecordsRepo } from "./repository.js"
import { eventsOf, readRecordRow, toStandardRecord } from "../consents/standard-record.js"

const linksOf = (row: SubjectRow): Array<IdentityLinkRecord> =>
  row.external_id === null
    ? []
    : [{
      externalId: row.external_id,
      identityProvider: row.identity_provider ?? "external",
      verified: Number(row.verified) === 1
    }]

/**
 * Access requests (GDPR Art. 15): everything svc holds about a subject, or about every subject
 * verifiably linked to a user, as 27560-style records plus the identity links.
 */
export class SubjectExports extends Effect.Service<SubjectExports>()("@svc/backend/SubjectExports", {
  dependencies: [ConsentRecordsRepo.Default, SubjectsRepo.Default, PolicyManifest.Default, ErasureKey.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const records = yield* ConsentRecordsRepo
    const subjects = yield* SubjectsRepo
    const manifest = yield* PolicyManifest
    const keys = yield* ErasureKey
    const tenantId = config.tenantId ?? ""

    const exportOf = (rows: ReadonlyArray<SubjectRow>) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const context = { now, rule: manifest.rule }
        const all = (yield* orDatabaseError(records.listBySubjects(tenantId, rows.map((r) => r.id)))).map(readRecordRow)
        const answer: SubjectExport = {
          exportedAt: new Date(now),
          subjects: rows.map((row) => {
            const mine = all.filter((r) => r.act.subjectId === row.id)
            const events = eventsOf(mine, context)
            const principal = { subjectId: row.id, externalIds: linksOf(row) }
            return {
              subjectId: row.id,
              createdAt: new Date(Number(row.created_at)),
              identityLinks: principal.externalIds,
              records: mine.map((r) => toStandardRecord(r, principal, events.get(r.act.id) ?? [], context))
            }
          })
        }
        return answer
      })

    /**
     * The anonymous proof left by erasing `id`: its records under the keyed hash, shown under that
     * hash with no identity links; `undefined` when there is none.
     */
    const erasedProof = (id: string) =>
      Effect.gen(function*() {
        const hashedId = yield* keys.hashedId(tenantId, id)
        const rows = (yield* orDatabaseError(records.listBySubjects(tenantId, [hashedId]))).map(readRecordRow)
        if (rows.length === 0) return undefined
        const now = yield* Clock.currentTimeMillis
        const context = { now, rule: manifest.rule }
        const events = eventsOf(rows, context)
        const principal = { subjectId: hashedId, externalIds: [] }
        const proof: SubjectExport = {
          exportedAt: new Date(now),
          subjects: [{
            subjectId: hashedId,
            createdAt: new Date(Math.min(...rows.map((r) => r.act.createdAt))),
            identityLinks: [],
            records: rows.map((r) => toStandardRecord(r, principal, events.get(r.act.id) ?? [], context))
          }]
        }
        return proof
      })

    /**
     * `GET /subjects/:id/export`. An erased id answers the anonymous proof its erasure left (so
     * the operator can show when it was erased); an id with neither is 404.
     */
    const bySubject = (id: string) =>
      Effect.gen(function*() {
        const found = yield* orDatabaseError(subjects.findById({ tenantId, id }))
        if (Option.isNone(found)) {
          const proof = yield* erasedProof(id)
          if (proof === undefined) return yield* Effect.fail(new NotFound({ message: "No such subject" }))
          return proof
        }
        return yield* exportOf([found.value])
      })

    /** `GET /subjects/export?externalId=`: verified links only, as `/subjects?externalId=` reads them. */
    const byExternalId = (externalId: string) =>
      Effect.flatMap(orDatabaseError(subjects.listVerifiedByExternalId({ tenantId, externalId })), exportOf)

    return { bySubject, byExternalId } as const
  })
}) {}
