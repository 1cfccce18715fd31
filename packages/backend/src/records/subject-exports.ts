import { NotFound } from "@svc/api"
import type { ConsentProof, IdentityLinkRecord, StandardConsentRecord, SubjectExport } from "@svc/schema"
import { Clock, Effect, Option } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { ErasureKey } from "../erasure/keys.js"
import { PolicyManifest } from "../policy/manifest.js"
import { SubjectsRepo, type SubjectRow } from "../identity/subjects-repository.js"
import { type ExportProofOption, ExportProofs } from "../transparency/export-proofs.js"
import type { RecordRow } from "../consents/record-row.js"
import { ConsentRecordsRepo } from "./repository.js"
import { eventsOf, readRecordRow, toStandardRecord } from "../consents/standard-record.js"

/** Acts whose proofs are computed in one batch (one statement for the nodes they need). */
const PROOF_BATCH = 100

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
  dependencies: [
    ConsentRecordsRepo.Default,
    SubjectsRepo.Default,
    PolicyManifest.Default,
    ErasureKey.Default,
    ExportProofs.Default
  ],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const records = yield* ConsentRecordsRepo
    const subjects = yield* SubjectsRepo
    const manifest = yield* PolicyManifest
    const keys = yield* ErasureKey
    const exportProofs = yield* ExportProofs
    const tenantId = config.tenantId ?? ""

    /**
     * What adds each record's proof (`logProof`, found by the record's id) when the export asks
     * for proofs, all against one checkpoint; leaves the records as they are otherwise.
     */
    const proofsOf = (rows: ReadonlyArray<RecordRow>, options: ExportProofOption) =>
      Effect.gen(function*() {
        if (options.proofs !== true) return (record: StandardConsentRecord) => record
        const batches = yield* exportProofs.start
        const byId = new Map<string, ConsentProof | null>()
        for (let i = 0; i < rows.length; i += PROOF_BATCH) {
          const batch = rows.slice(i, i + PROOF_BATCH)
          const proofs = yield* batches.proofsOf(batch)
          batch.forEach((row, j) => byId.set(row.id, proofs[j] ?? null))
        }
        return (record: StandardConsentRecord): StandardConsentRecord => ({
          ...record,
          logProof: byId.get(record.recordId) ?? null
        })
      })

    const exportOf = (rows: ReadonlyArray<SubjectRow>, options: ExportProofOption) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const context = { now, rule: manifest.rule }
        const stored = yield* orDatabaseError(records.listBySubjects(tenantId, rows.map((r) => r.id)))
        const withProof = yield* proofsOf(stored, options)
        const all = stored.map(readRecordRow)
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
              records: mine.map((r) => withProof(toStandardRecord(r, principal, events.get(r.act.id) ?? [], context)))
            }
          })
        }
        return answer
      })

    /**
     * The anonymous proof left by erasing `id`: its records under the keyed hash, shown under that
     * hash with no identity links; `undefined` when there is none.
     */
    const erasedProof = (id: string, options: ExportProofOption) =>
      Effect.gen(function*() {
        const hashedId = yield* keys.hashedId(tenantId, id)
        const stored = yield* orDatabaseError(records.listBySubjects(tenantId, [hashedId]))
        const withProof = yield* proofsOf(stored, options)
        const rows = stored.map(readRecordRow)
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
            records: rows.map((r) => withProof(toStandardRecord(r, principal, events.get(r.act.id) ?? [], context)))
          }]
        }
        return proof
      })

    /**
     * `GET /subjects/:id/export`. An erased id answers the anonymous proof its erasure left (so
     * the operator can show when it was erased); an id with neither is 404.
     */
    const bySubject = (id: string, options: ExportProofOption = {}) =>
      Effect.gen(function*() {
        const found = yield* orDatabaseError(subjects.findById({ tenantId, id }))
        if (Option.isNone(found)) {
          const proof = yield* erasedProof(id, options)
          if (proof === undefined) return yield* Effect.fail(new NotFound({ message: "No such subject" }))
          return proof
        }
        return yield* exportOf([found.value], options)
      })

    /** `GET /subjects/export?externalId=`: verified links only, as `/subjects?externalId=` reads them. */
    const byExternalId = (externalId: string, options: ExportProofOption = {}) =>
      Effect.flatMap(
        orDatabaseError(subjects.listVerifiedByExternalId({ tenantId, externalId })),
        (rows) => exportOf(rows, options)
      )

    return { bySubject, byExternalId } as const
  })
}) {}
