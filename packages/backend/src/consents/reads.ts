import { type DatabaseError, InvalidRequest, NotFound } from "@svc/api"
import type { ConsentCheck, SubjectList, SubjectView } from "@svc/schema"
import { isLegalDocumentType, SubjectId } from "@svc/schema"
import { Array, Clock, Effect, Option } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { LegalDocuments } from "../legal/documents.js"
import { PolicyManifest } from "../policy/manifest.js"
import { DEFAULT_IDENTITY_PROVIDER } from "../identity/identity-links.js"
import { SubjectsRepo, type SubjectRow } from "../identity/subjects-repository.js"
import { isLatestPolicy, isValidFor, type PolicyContext, subjectChoiceOf, subjectVendorChoiceOf } from "./choices.js"
import { readConsentRow, type StoredConsent, toConsentRecord } from "./records.js"
import { ConsentsRepo } from "./repository.js"

const MAX_CHECK_TYPES = 50

/** Types asked for, trimmed and each once; `undefined` when none are left. */
const typeListOf = (types: ReadonlyArray<string> | undefined): ReadonlyArray<string> | undefined => {
  if (types === undefined) return undefined
  const unique = [...new Set(types.map((t) => t.trim()).filter((t) => t !== ""))]
  return unique.length === 0 ? undefined : unique
}

/**
 * The read side of the consent ledger (the write side is `Consents`): a subject's acts, the
 * subjects of a user and consent checks, each with a fixed number of statements however many acts
 * a subject has. `Subjects` answers with it.
 */
export class ConsentReads extends Effect.Service<ConsentReads>()("@svc/backend/ConsentReads", {
  dependencies: [ConsentsRepo.Default, SubjectsRepo.Default, LegalDocuments.Default, PolicyManifest.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const consents = yield* ConsentsRepo
    const subjects = yield* SubjectsRepo
    const legalDocuments = yield* LegalDocuments
    const manifest = yield* PolicyManifest
    const tenantId = config.tenantId ?? ""
    const declaredVendors = config.manifest.vendors ?? []

    const policyContext = (stored: ReadonlyArray<StoredConsent>): Effect.Effect<PolicyContext, DatabaseError> =>
      stored.some((c) => isLegalDocumentType(c.type))
        ? Effect.map(legalDocuments.currentIds, (currentLegal) => ({ currentLegal, rule: manifest.rule }))
        : Effect.succeed({ currentLegal: new Map(), rule: manifest.rule })

    const subjectOf = (row: SubjectRow) => ({
      // A stored id, checked by its schema when the subject was written (as a record's, records.ts).
      id: SubjectId.make(row.id, { disableValidation: true }),
      externalId: row.external_id,
      identityProvider: row.identity_provider,
      verified: Number(row.verified) === 1,
      createdAt: new Date(Number(row.created_at))
    })

    /** The `GET /subjects/:id` answer from a subject's row and all its acts (read). */
    const viewOf = (
      subject: SubjectRow,
      all: ReadonlyArray<StoredConsent>,
      types: ReadonlyArray<string> | undefined,
      context: PolicyContext,
      now: number
    ): SubjectView => {
      const selected = types === undefined ? all : all.filter((c) => types.includes(c.type))
      const choice = subjectChoiceOf(all)
      return {
        subject: subjectOf(subject),
        consents: selected.map((c) => toConsentRecord(c, isLatestPolicy(c, context))),
        isValid: isValidFor(selected, types, context, now),
        subjectChoice: choice,
        subjectVendorChoice: subjectVendorChoiceOf(all, declaredVendors, choice)
      }
    }

    /**
     * `GET /subjects/:id`: one statement (the subject joined with its acts), and a second only when
     * it has legal acts (the current legal releases). Plain combinators, not a generator: it runs
     * for every read.
     */
    const view = (
      id: string,
      typeFilter: ReadonlyArray<string> | undefined
    ): Effect.Effect<SubjectView, NotFound | DatabaseError> =>
      Effect.flatMap(orDatabaseError(consents.findSubjectWithConsents(tenantId, id)), (
        found
      ): Effect.Effect<SubjectView, NotFound | DatabaseError> => {
        if (Option.isNone(found)) return Effect.fail(new NotFound({ message: "No such subject" }))
        const { subject } = found.value
        const all = found.value.consents.map(readConsentRow)
        const types = typeListOf(typeFilter)
        return Effect.zipWith(
          policyContext(all),
          Clock.currentTimeMillis,
          (context, now) => viewOf(subject, all, types, context, now)
        )
      })

    /** `GET /subjects?externalId=`: verified links only; at most three statements. */
    const listByExternalId = (externalId: string): Effect.Effect<SubjectList, DatabaseError> =>
      Effect.gen(function*() {
        const rows = yield* orDatabaseError(subjects.listVerifiedByExternalId({ tenantId, externalId }))
        if (!Array.isNonEmptyReadonlyArray(rows)) return { subjects: [] }
        const subjectIds = Array.map(rows, (row) => row.id)
        const all = (yield* orDatabaseError(consents.listBySubjects({ tenantId, subjectIds }))).map(readConsentRow)
        const context = yield* policyContext(all)
        return {
          subjects: rows.map((row) => ({
            id: SubjectId.make(row.id),
            externalId: row.external_id ?? externalId,
            identityProvider: row.identity_provider ?? DEFAULT_IDENTITY_PROVIDER,
            createdAt: new Date(Number(row.created_at)),
            consents: all.filter((c) => c.subjectId === row.id).map((c) =>
              toConsentRecord(c, isLatestPolicy(c, context))
            )
          }))
        }
      })

    /**
     * `GET /consents/check`: per requested type, `hasConsent` when any record of the type exists
     * (a reject included) and `isLatestPolicy` when one of them is on the latest policy.
     */
    const check = (
      externalId: string,
      typeList: ReadonlyArray<string>
    ): Effect.Effect<ConsentCheck, InvalidRequest | DatabaseError> =>
      Effect.gen(function*() {
        const types = typeListOf(typeList)
        if (types === undefined) {
          return yield* Effect.fail(new InvalidRequest({ message: "type: a list of policy types is required" }))
        }
        if (types.length > MAX_CHECK_TYPES) {
          return yield* Effect.fail(new InvalidRequest({ message: `type: at most ${MAX_CHECK_TYPES} types per check` }))
        }
        const all = (yield* orDatabaseError(consents.listTypesByVerifiedExternalId({ tenantId, externalId, types })))
          .map(
            readConsentRow
          )
        const context = yield* policyContext(all)
        // Object.fromEntries: a type named "__proto__" is answered, not swallowed by the prototype.
        const results: Record<string, { hasConsent: boolean; isLatestPolicy: boolean }> = Object.fromEntries(
          types.map((type) => {
            const ofType = all.filter((c) => c.type === type)
            return [type, {
              hasConsent: ofType.length > 0,
              isLatestPolicy: ofType.some((c) => isLatestPolicy(c, context))
            }]
          })
        )
        return { results }
      })

    return { view, listByExternalId, check } as const
  })
}) {}
