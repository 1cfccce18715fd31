import {
  Conflict,
  type DatabaseError,
  describeIssues,
  InvalidRequest,
  NotFound,
  PolicySnapshotExpired,
  PolicySnapshotInvalid
} from "@svc/api"
import type { LegalDocumentRelease } from "@svc/schema"
import {
  isLegalDocumentType,
  LegalDocumentPublishedEvent,
  LegalReleaseId,
  PublishLegalDocumentRequest
} from "@svc/schema"
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option, ParseResult, Schema } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { EventOutbox } from "../events/outbox.js"
import { LegalDocumentsRepo, type ReleaseRow } from "./repository.js"
import { verifyLegalDocumentSnapshot } from "./snapshot-tokens.js"

export const newReleaseId = () => LegalReleaseId.make(`pol_${randomBytes(12).toString("base64url")}`)

export const toRelease = (row: ReleaseRow): LegalDocumentRelease => ({
  id: LegalReleaseId.make(row.id),
  type: row.type,
  version: row.version,
  hash: row.hash,
  effectiveDate: new Date(row.effective_date),
  createdAt: new Date(row.created_at)
})

/** How a legal-document save names the document the visitor accepted. */
export interface DocumentReference {
  readonly policyHash?: string | undefined
  readonly policyId?: string | undefined
  readonly documentSnapshotToken?: string | undefined
}

const validatePublish = Schema.validate(PublishLegalDocumentRequest, { errors: "all" })

/**
 * Published legal document releases (`PUT /legal-documents/:type/current`, `GET …/current`,
 * `GET /legal-documents/:type`). The latest publish of a type is current (highest revision);
 * republishing a hash with the same version and date changes nothing, with anything else it is a
 * CONFLICT. Types are `privacy_policy`, `dpa` and `terms_and_conditions`, each optionally
 * followed by `_<suffix>`.
 *
 * @example
 * ```ts
 * import { LegalDocuments } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // From a deploy script: the new privacy policy becomes current.
 * const release = Effect.flatMap(LegalDocuments, (documents) =>
 *   documents.publish("privacy_policy", {
 *     version: "2026-02", hash: "sha256-3f1c…", effectiveDate: new Date("2026-02-01")
 *   }))
 * ```
 */
export class LegalDocuments extends Effect.Service<LegalDocuments>()("@svc/backend/LegalDocuments", {
  dependencies: [LegalDocumentsRepo.Default, EventOutbox.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* LegalDocumentsRepo
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* EventOutbox
    const tenantId = config.tenantId ?? ""

    const sameRelease = (row: ReleaseRow, version: string, effectiveDate: number) =>
      row.version === version && Number(row.effective_date) === effectiveDate

    const conflict = (row: ReleaseRow) =>
      new Conflict({
        message: `This ${row.type} hash is already published as version ${row.version} effective ${
          new Date(row.effective_date).toISOString()
        }; publish a new hash for a new version`
      })

    const publish = (
      type: string,
      input: { readonly version: string; readonly hash: string; readonly effectiveDate: Date }
    ): Effect.Effect<LegalDocumentRelease, Conflict | InvalidRequest | DatabaseError> =>
      Effect.gen(function*() {
        if (!isLegalDocumentType(type)) {
          return yield* Effect.fail(
            new InvalidRequest({
              message: `type: expected privacy_policy, dpa or terms_and_conditions, optionally followed by _<suffix> ` +
                `([a-z0-9-]{1,32}), got ${JSON.stringify(type).slice(0, 80)}`
            })
          )
        }
        yield* validatePublish(input).pipe(
          Effect.mapError((error) =>
            new InvalidRequest({ message: describeIssues(ParseResult.ArrayFormatter.formatErrorSync(error)) })
          )
        )
        const effectiveDate = input.effectiveDate.getTime()
        if (!Number.isFinite(effectiveDate)) {
          return yield* Effect.fail(
            new InvalidRequest({ message: "Invalid request: effectiveDate is outside the representable range" })
          )
        }
        const key = { tenantId, type, hash: input.hash }
        // A few rounds at most: each lost round means another publish of this type landed first.
        for (let attempt = 0; attempt < 20; attempt++) {
          const existing = yield* repo.findByHash(key)
          if (Option.isSome(existing)) {
            if (sameRelease(existing.value, input.version, effectiveDate)) return toRelease(existing.value)
            return yield* Effect.fail(conflict(existing.value))
          }
          const id = newReleaseId()
          // The release and its `legal_document.published` event land together or not at all.
          const published = yield* sql.withTransaction(
            Effect.gen(function*() {
              const inserted = yield* repo.insertNext({
                id,
                tenantId,
                type,
                version: input.version,
                hash: input.hash,
                effectiveDate,
                createdAt: yield* Clock.currentTimeMillis
              })
              if (!inserted) return Option.none()
              const row = yield* repo.findByHash(key)
              if (Option.isNone(row)) return Option.none()
              const release = toRelease(row.value)
              yield* outbox.append({
                schema: LegalDocumentPublishedEvent,
                type: "legal_document.published",
                orderKey: `legal:${release.type}`,
                data: release
              })
              return Option.some(release)
            })
          )
          if (Option.isSome(published)) return published.value
        }
        return yield* Effect.dieMessage("legal document publish did not settle after 20 attempts")
      }).pipe(orDatabaseError)

    const invalid = (message: string) => new InvalidRequest({ message })

    /**
     * The release a legal-document save refers to: by `policyId` (a release id), by
     * `policyHash`, by a signed `documentSnapshotToken`, or else the type's current release.
     */
    const resolveReference = (
      type: string,
      reference: DocumentReference,
      givenAt: Date
    ): Effect.Effect<ReleaseRow, InvalidRequest | PolicySnapshotInvalid | PolicySnapshotExpired | DatabaseError> =>
      Effect.gen(function*() {
        let hash = reference.policyHash
        if (reference.documentSnapshotToken !== undefined) {
          const settings = config.legalDocumentSnapshot
          if (settings === undefined) {
            return yield* Effect.fail(
              new PolicySnapshotInvalid({ message: "Legal document snapshots are not configured on this backend" })
            )
          }
          const token = reference.documentSnapshotToken
          const snapshot = yield* Effect.promise(() => verifyLegalDocumentSnapshot(settings, token, givenAt))
          if (snapshot === "expired") {
            return yield* Effect.fail(
              new PolicySnapshotExpired({ message: "givenAt lies outside the document snapshot's lifetime" })
            )
          }
          if (snapshot === undefined) {
            return yield* Effect.fail(new PolicySnapshotInvalid({ message: "Document snapshot token does not verify" }))
          }
          if (snapshot.type !== type) {
            return yield* Effect.fail(
              new PolicySnapshotInvalid({ message: `Document snapshot is for ${snapshot.type}, not ${type}` })
            )
          }
          if (hash !== undefined && hash !== snapshot.hash) {
            return yield* Effect.fail(invalid("policyHash differs from the document snapshot's hash"))
          }
          hash = snapshot.hash
        }
        const found = reference.policyId !== undefined
          ? yield* repo.findById({ tenantId, type, id: reference.policyId })
          : hash !== undefined
          ? yield* repo.findByHash({ tenantId, type, hash })
          : yield* repo.findCurrent({ tenantId, type })
        if (Option.isNone(found)) {
          const named = reference.policyId !== undefined
            ? `policyId ${reference.policyId}`
            : hash !== undefined
            ? "this policyHash"
            : "any version"
          return yield* Effect.fail(
            invalid(
              `No ${type} document is published with ${named}; publish it with PUT /legal-documents/${type}/current`
            )
          )
        }
        if (reference.policyId !== undefined && hash !== undefined && found.value.hash !== hash) {
          return yield* Effect.fail(invalid("policyId and policyHash name different releases"))
        }
        return found.value
      }).pipe(orDatabaseError)

    /** Id of the current release per type. */
    const currentIds = orDatabaseError(repo.currentIds(tenantId)).pipe(
      Effect.map((rows) => new Map(rows.map((row) => [row.type, row.id])))
    )

    /** `GET /legal-documents/:type/current`: the latest publish of the type. */
    const current = (type: string): Effect.Effect<LegalDocumentRelease, NotFound | DatabaseError> =>
      orDatabaseError(repo.findCurrent({ tenantId, type })).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new NotFound({ message: `No ${type} document is published` })),
          onSome: (row) => Effect.succeed(toRelease(row))
        }))
      )

    /** `GET /legal-documents/:type`: every release, the current one first (empty when none). */
    const list = (type: string): Effect.Effect<ReadonlyArray<LegalDocumentRelease>, DatabaseError> =>
      Effect.map(orDatabaseError(repo.listByType({ tenantId, type })), (rows) => rows.map(toRelease))

    return { publish, resolveReference, currentIds, current, list } as const
  })
}) {}
