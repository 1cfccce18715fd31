import {
  Conflict,
  type DatabaseError,
  describeIssues,
  InvalidRequest,
  type PolicySnapshotExpired,
  type PolicySnapshotInvalid,
  StalePolicy,
  SubjectConflict
} from "@svc/api"
import { ConsentId, isLegalDocumentType, SaveConsentRequest, type SaveConsentResponse } from "@svc/schema"
import { SqlClient, type SqlError } from "@effect/sql"
import { Clock, Effect, Either, Option, ParseResult, Schema } from "effect"
import { storedIp } from "../access/ip-address.js"
import type { RequestContext } from "../access/request-context.js"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { retryDeadlocks } from "../database/deadlock.js"
import { applyGpc, encodeGpcProof } from "./gpc.js"
import { decodeSignalStrings } from "./signal-strings.js"
import { LegalDocuments } from "../legal/documents.js"
import { PolicyManifest } from "../policy/manifest.js"
import { PolicySnapshots } from "../policy/snapshots.js"
import { DEFAULT_IDENTITY_PROVIDER, IdentityLinks } from "../identity/identity-links.js"
import { type NewSubject, SubjectsRepo } from "../identity/subjects-repository.js"
import { type ActDecision, actDigest, actKey, decisionOf } from "./act.js"
import { ConsentEvents } from "./consent-events.js"
import { subjectChoiceOf, subjectVendorChoiceOf } from "./choices.js"
import { readConsentRow, type StoredConsent } from "./records.js"
import { type ConsentColumns, type ConsentRow, consentRowOf, ConsentsRepo } from "./repository.js"
import { makeRandomPool } from "./random-pool.js"
import { judgeSnapshot, type SnapshotVerdict } from "./snapshot-rules.js"
import { commitPersonalData } from "../transparency/leaf.js"

/**
 * Who made the act, as far as the calling code knows: what `POST /subjects` reads from the
 * request's headers. Every field is optional; what is missing is stored as unknown.
 *
 * @example
 * ```ts
 * import { Consents, type ConsentVisitor } from "@svc/backend"
 * import { SubjectId } from "@svc/schema"
 * import { Effect } from "effect"
 * import type { IncomingMessage } from "node:http"
 *
 * // What the app's sign-up route knows about the visitor, kept as the record's proof.
 * const visitorOf = (req: IncomingMessage): ConsentVisitor => ({
 *   ipAddress: req.socket.remoteAddress,
 *   userAgent: req.headers["user-agent"],
 *   gpc: req.headers["sec-gpc"] === "1"
 * })
 * export const acceptTerms = (req: IncomingMessage, subjectId: string, userId: string) =>
 *   Effect.flatMap(Consents, (consents) =>
 *     consents.record({ type: "terms_and_conditions", domain: "shop.example.com", subjectId: SubjectId.make(subjectId),
 *       givenAt: new Date(), externalSubjectId: userId }, visitorOf(req)))
 * ```
 */
export interface ConsentVisitor {
  /** The visitor's IP address; stored masked (or not at all) as `ipAddress` configures. */
  readonly ipAddress?: string | undefined
  /** The visitor's `User-Agent`. */
  readonly userAgent?: string | undefined
  /** Global Privacy Control was on (`Sec-GPC: 1`): the rule's `gpcDenies` categories are refused. */
  readonly gpc?: boolean | undefined
  /** The visitor's country (ISO 3166-1 alpha-2), when the app knows it. */
  readonly country?: string | undefined
}

/**
 * Every way `Consents.record` can fail: the `@svc/api` errors a `POST /subjects` answers with, each
 * a `Schema.TaggedError` told apart by its `_tag`.
 *
 * @example
 * ```ts
 * import type { SaveError } from "@svc/backend"
 *
 * // The status an app's own save route answers with, as svc's HTTP API does.
 * const statusOf = (error: SaveError): number => {
 *   switch (error._tag) {
 *     case "Conflict":
 *     case "SubjectConflict":
 *     case "PolicySnapshotExpired":
 *     case "PolicySnapshotInvalid":
 *       return 409
 *     case "StalePolicy":
 *       return 422
 *     case "DatabaseError":
 *       return 503
 *     default:
 *       return 400
 *   }
 * }
 * ```
 */
export type SaveError =
  | Conflict
  | SubjectConflict
  | PolicySnapshotExpired
  | PolicySnapshotInvalid
  | StalePolicy
  | InvalidRequest
  | DatabaseError

/** An id svc makes is of its schema's form by construction: not checked again. */
const madeId = { disableValidation: true } as const

const USER_AGENT_MAX = 512
/** JSON columns are TEXT: 65,535 bytes on MySQL, which would truncate rather than refuse. */
const JSON_COLUMN_MAX_BYTES = 60_000

/** Why a decided act cannot be stored faithfully, if it cannot. */
const unstorable = (decision: ActDecision, givenAt: number): string | undefined => {
  const times = [givenAt, ...Object.values(decision.receipts).map((r) => r.confirmedAt),
    decision.vendorChoice?.confirmedAt]
  if (times.some((t) => t !== undefined && !Number.isFinite(t))) return "a time is outside the representable range"
  if (
    decision.vendorChoice !== null && Buffer.byteLength(JSON.stringify(decision.vendorChoice)) > JSON_COLUMN_MAX_BYTES
  ) {
    return `vendorChoice is larger than ${JSON_COLUMN_MAX_BYTES} bytes`
  }
  return undefined
}

const validateSave = Schema.validate(SaveConsentRequest, { errors: "all" })

const subjectConflict = () => new SubjectConflict({ message: "This subject id is held by another tenant" })

/** No policy judged: signing is off, or the act needs no snapshot token. */
const noVerdict = Effect.succeed(undefined)

/**
 * The write side of the consent ledger (the read side is `ConsentReads`): records acts exactly
 * once (the act key is unique, so a replay or a racing twin gets the stored record back) and
 * judges policy snapshots.
 *
 * @example
 * ```ts
 * import { Consents } from "@svc/backend"
 * import { SubjectId } from "@svc/schema"
 * import { Effect } from "effect"
 *
 * // In a sign-up handler: the privacy policy the user ticked, with the user's id linked (verified).
 * const signUp = (userId: string, subjectId: string, ip: string) =>
 *   Effect.flatMap(Consents, (consents) =>
 *     consents.record(
 *       { type: "privacy_policy", domain: "example.com", subjectId: SubjectId.make(subjectId),
 *         givenAt: new Date(), externalSubjectId: userId },
 *       { ipAddress: ip }
 *     ))
 * ```
 */
export class Consents extends Effect.Service<Consents>()("@svc/backend/Consents", {
  dependencies: [
    ConsentsRepo.Default,
    SubjectsRepo.Default,
    IdentityLinks.Default,
    LegalDocuments.Default,
    PolicySnapshots.Default,
    PolicyManifest.Default,
    ConsentEvents.Default
  ],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const sql = yield* SqlClient.SqlClient
    const consents = yield* ConsentsRepo
    const subjects = yield* SubjectsRepo
    const links = yield* IdentityLinks
    const legalDocuments = yield* LegalDocuments
    const snapshots = yield* PolicySnapshots
    const manifest = yield* PolicyManifest
    const events = yield* ConsentEvents
    const tenantId = config.tenantId ?? ""
    const declaredVendors = config.manifest.vendors ?? []
    const random = makeRandomPool()
    const newConsentId = () => ConsentId.make(`cns_${random(16).toString("base64url")}`, madeId)

    /**
     * Which policy the act was decided under. With signing configured a cookie-banner save must
     * carry a snapshot token (an API-key request may record without one); without signing any
     * token is ignored and no policy is recorded.
     */
    const judge = (
      body: SaveConsentRequest,
      decision: ActDecision,
      now: number,
      withApiKey: boolean
    ): Effect.Effect<SnapshotVerdict | undefined, PolicySnapshotInvalid | PolicySnapshotExpired | StalePolicy> => {
      const settings = snapshots.settings
      if (settings === undefined) return noVerdict
      const token = body.policySnapshotToken
      if (token === undefined) {
        if (body.type !== "cookie_banner" || withApiKey) return noVerdict
        return Effect.fail(
          new StalePolicy({
            message: "This backend signs policy decisions: send the policySnapshotToken from /init with the save",
            reason: "incomplete-inputs"
          })
        )
      }
      return Effect.flatMap(snapshots.verify(token), (claims) =>
        judgeSnapshot({
          claims,
          givenAt: body.givenAt.getTime(),
          now,
          replayWindowSeconds: settings.replayWindowSeconds,
          pack: manifest.rule(claims.policyId),
          decision,
          checkDecision: body.type === "cookie_banner"
        }))
    }

    /** Whether one statement writes a save's subject and act (PostgreSQL), atomic without a transaction. */
    const oneStatement = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

    /**
     * The subject unless its id exists, then the act unless its key exists; SUBJECT_CONFLICT,
     * with nothing written, when another tenant holds the id. Whether this call created the
     * subject and stored the act. Elsewhere than on PostgreSQL, the caller's transaction makes
     * the statements one.
     */
    const insertSubjectAndAct = (
      subject: NewSubject,
      row: ConsentColumns
    ): Effect.Effect<
      { readonly created: boolean; readonly stored: boolean },
      SubjectConflict | SqlError.SqlError | ParseResult.ParseError
    > =>
      oneStatement
        ? Effect.flatMap(consents.insertWithSubject(subject, row), (outcome) =>
          outcome === "another tenant's subject" ? Effect.fail(subjectConflict()) : Effect.succeed(outcome))
        : Effect.gen(function*() {
          const created = yield* subjects.insertIfAbsent(subject)
          if (!created) {
            const owner = yield* subjects.ownerOf(subject.id)
            if (Option.isSome(owner) && owner.value.tenant_id !== subject.tenantId)
              return yield* Effect.fail(subjectConflict())
          }
          return { created, stored: yield* consents.insertIfAbsent(row) }
        })

    /** A stored act answering a save: the same decision returns it, any other is a CONFLICT. */
    const answerStored = (row: ConsentRow, digest: string) => {
      const stored = readConsentRow(row)
      if (!stored.readable || stored.digest !== digest) {
        return Effect.fail(
          new Conflict({
            message: stored.readable
              ? "This act is already recorded with different receipts, purposes or vendor grants; the earlier record stands"
              : "This act is already recorded and its stored decision cannot be read; the earlier record stands"
          })
        )
      }
      return Effect.succeed(stored)
    }

    const respond = (stored: StoredConsent): Effect.Effect<SaveConsentResponse, DatabaseError> => {
      const response: SaveConsentResponse = {
        subjectId: stored.subjectId,
        consentId: stored.id,
        appliedPreferences: stored.preferences,
        givenAt: new Date(stored.givenAt),
        runtimePolicySource: stored.runtimePolicySource,
        ...(stored.gpc === null ? {} : { gpcOverridden: stored.gpc.overridden })
      }
      if (stored.vendorChoice === null) return Effect.succeed(response)
      return Effect.map(orDatabaseError(consents.listBySubject({ tenantId, subjectId: stored.subjectId })), (rows) => {
        const all = rows.map(readConsentRow)
        const vendorChoice = subjectVendorChoiceOf(all, declaredVendors, subjectChoiceOf(all))
        return vendorChoice === null ? response : { ...response, subjectVendorChoice: vendorChoice }
      })
    }

    /** The save's outcome on its wide log event (and so in the save metrics, with telemetry). */
    const recordDecisionSource = (event: RequestContext["logFields"], stored: StoredConsent, action: string | null) => {
      if (event === undefined) return
      event["consent.type"] = stored.type
      if (stored.policyId !== null) event["consent.policyId"] = stored.policyId
      if (action !== null) event["consent.action"] = action
      if (stored.runtimePolicySource !== null) event["consent.decisionSource"] = stored.runtimePolicySource
    }

    /** `POST /subjects`, with what the HTTP side read from the request (its body already decoded). */
    const save = (body: SaveConsentRequest, context: RequestContext): Effect.Effect<SaveConsentResponse, SaveError> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const givenAt = body.givenAt.getTime()
        const release = isLegalDocumentType(body.type)
          ? yield* legalDocuments.resolveReference(body.type, body, body.givenAt)
          : null
        const decision = decisionOf(body)
        const problem = unstorable(decision, givenAt)
        if (problem !== undefined)
          return yield* Effect.fail(new InvalidRequest({ message: `Invalid request: ${problem}` }))
        const signalStrings = yield* decodeSignalStrings(body)
        const key = actKey({
          tenantId,
          subjectId: body.subjectId,
          type: body.type,
          domain: body.domain,
          givenAt,
          legalReleaseId: release?.id ?? null
        })
        const digest = actDigest(decision)
        // Read only where a save meets its stored twin (a replay, a stale token): built when run.
        const findStored = orDatabaseError(Effect.suspend(() => consents.findByActKey({ tenantId, actKey: key })))

        const verdict = yield* Effect.either(judge(body, decision, now, context.apiKey === "valid"))
        if (Either.isLeft(verdict)) {
          // A landed save is answered with its record even once its token has gone stale.
          const landed = yield* findStored
          if (Option.isSome(landed)) {
            const stored = yield* answerStored(landed.value, digest)
            recordDecisionSource(context.logFields, stored, body.action ?? null)
            return yield* respond(stored)
          }
          return yield* Effect.fail(verdict.left)
        }
        const pack = verdict.right?.pack
        // GPC: from the request, or as /init saw it; the rule's gpcDenies win over what the act claims.
        const gpc = applyGpc(
          decision,
          context.gpc || verdict.right?.gpc === true,
          pack ?? (body.policyId === undefined ? undefined : manifest.rule(body.policyId))
        )
        const applied = gpc.decision
        const storedDigest = applied === decision ? digest : actDigest(applied)

        // The subject: created with its link on first save; a token only counts on creation.
        let link = null
        if (body.externalSubjectId !== undefined) {
          const provider = body.identityProvider ?? DEFAULT_IDENTITY_PROVIDER
          const proof = yield* links.prove(
            { apiKey: context.apiKey, identityToken: body.identityToken },
            body.externalSubjectId,
            provider
          )
          link = {
            externalId: body.externalSubjectId,
            identityProvider: provider,
            verified: proof === "api-key" || proof === "token"
          }
        }

        const storeIp = pack?.proof?.storeIp ?? true
        const storeUserAgent = pack?.proof?.storeUserAgent ?? true
        const userAgent = context.userAgent
        const ipAddress = storeIp ? context.ipAddress : null
        const storedUserAgent = storeUserAgent && userAgent !== undefined && userAgent !== ""
          ? userAgent.slice(0, USER_AGENT_MAX)
          : null
        // The transparency log's leaf holds the personal data only through this commitment.
        const personal = commitPersonalData({
          subjectId: body.subjectId,
          externalId: link?.externalId ?? null,
          ipAddress,
          userAgent: storedUserAgent
        }, random(16))
        const row: ConsentColumns = {
          id: newConsentId(),
          tenant_id: tenantId,
          subject_id: body.subjectId,
          act_key: key,
          act_digest: storedDigest,
          type: body.type,
          domain: body.domain,
          given_at: givenAt,
          created_at: now,
          preferences: applied.preferences === null ? null : JSON.stringify(applied.preferences),
          receipts: JSON.stringify(applied.receipts),
          vendor_choice: applied.vendorChoice === null ? null : JSON.stringify(applied.vendorChoice),
          policy_id: pack?.id ?? null,
          policy_fingerprint: pack?.fingerprint ?? null,
          runtime_policy_source: verdict.right?.source ?? null,
          legal_release_id: release?.id ?? null,
          ip_address: ipAddress,
          user_agent: storedUserAgent,
          journey_id: body.journey?.id ?? null,
          experiment_id: body.experiment?.id ?? null,
          experiment_arm: body.experiment?.arm ?? null,
          action: body.action ?? null,
          surface: body.surface ?? null,
          time_to_decision_ms: body.timeToDecisionMs ?? null,
          gpc: encodeGpcProof(gpc.proof),
          gpp_string: signalStrings.gppString,
          gpp_section_ids: signalStrings.gppSectionIds,
          tc_string: signalStrings.tcString,
          country: context.country,
          log_commitment: personal.commitment,
          log_salt: personal.salt
        }
        // The act as a read of its row would give it: its events carry it, and a first save answers with it.
        const written = readConsentRow(consentRowOf(row, release))
        // The subject (with its link), the act and its events land together or not at all. Both
        // inserts skip an existing row rather than raise, so nothing aborts the transaction; on
        // PostgreSQL one statement writes both, a transaction only when events go with them.
        const land = Effect.gen(function*() {
          const { created, stored } = yield* insertSubjectAndAct({ id: body.subjectId, tenantId, link, now }, row)
          // The act's events commit (or roll back) with it; a replay stores nothing and sends nothing.
          if (stored) {
            yield* events.recorded({
              stored: written,
              link,
              newSubject: created,
              action: body.action ?? null,
              surface: body.surface ?? null
            })
          }
          return stored
        })
        const inserted = yield* (oneStatement && !events.wanted ? land : sql.withTransaction(land)).pipe(
          retryDeadlocks,
          orDatabaseError
        )
        // A twin's act is read after this transaction ends: inside it, a MySQL snapshot could predate the twin's commit.
        let stored: StoredConsent
        if (inserted) {
          stored = written
        } else {
          const landed = yield* findStored
          if (Option.isNone(landed)) return yield* Effect.dieMessage("an act that blocked an insert is not readable")
          stored = yield* answerStored(landed.value, storedDigest)
        }
        recordDecisionSource(context.logFields, stored, body.action ?? null)
        return yield* respond(stored)
      })

    /**
     * The `POST /subjects` act from server code, with no HTTP: the same idempotency, CONFLICT,
     * SUBJECT_CONFLICT, late-save and GPC rules and the same outbox event, answering what
     * `POST /subjects` answers. Server code is trusted as an API-key request is: an
     * `externalSubjectId` is linked verified, and a cookie-banner act needs no snapshot token.
     * The input is checked against the `SaveConsentRequest` schema first (INVALID_REQUEST).
     */
    const record = (
      input: SaveConsentRequest,
      visitor: ConsentVisitor = {}
    ): Effect.Effect<SaveConsentResponse, SaveError> =>
      validateSave(input).pipe(
        Effect.mapError((error) =>
          new InvalidRequest({
            message: describeIssues(ParseResult.ArrayFormatter.formatErrorSync(error))
          })
        ),
        Effect.flatMap((body) =>
          save(body, {
            apiKey: "valid",
            ipAddress: storedIp(config.ipAddress, visitor.ipAddress),
            userAgent: visitor.userAgent,
            gpc: visitor.gpc === true,
            country: visitor.country ?? null,
            logFields: undefined
          })
        )
      )

    return { record, save } as const
  })
}) {}
