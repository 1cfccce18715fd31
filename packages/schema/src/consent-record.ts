import { Schema } from "effect"
import { OptionalCategory } from "./categories.js"
import { ConsentAction, ConsentSurface, GpcProof, PolicyType, RuntimePolicySource, VendorGrants } from "./consent.js"
import { Timestamp } from "./time.js"
import { ConsentProof } from "./transparency-log.js"

/*
 * A consent record modelled on ISO/IEC TS 27560:2023 (consent record information structure, the
 * successor of the Kantara Consent Receipt). Field names are svc's camelCase; each block names the
 * 27560 element it carries. docs/adr/0065-iso-27560-consent-record.md has the full mapping.
 */

/**
 * The `schemaVersion` every record carries; a change of shape gets a new one.
 *
 * @example
 * ```ts
 * import { CONSENT_RECORD_SCHEMA_VERSION, type SubjectExport } from "@svc/schema"
 *
 * // An archive job refuses records of a shape it was not written for, rather than misread them.
 * const unknownShapes = (exported: SubjectExport) =>
 *   exported.subjects
 *     .flatMap((subject) => subject.records)
 *     .filter((record) => record.schemaVersion !== CONSENT_RECORD_SCHEMA_VERSION)
 * ```
 */
export const CONSENT_RECORD_SCHEMA_VERSION = "svc-consent-record/1 (ISO/IEC TS 27560:2023)"

/**
 * 27560 consent state transitions svc records. `erased`: the principal's personal data was removed.
 *
 * @example
 * ```ts
 * import type { ConsentEventType } from "@svc/schema"
 *
 * // Labels of a record's history in a DPO's report.
 * const label: Record<ConsentEventType, string> = {
 *   given: "Consent given",
 *   withdrawn: "Withdrawn by a later choice",
 *   expired: "Expired (validity ended)",
 *   erased: "Personal data erased"
 * }
 * ```
 */
export const ConsentEventType = Schema.Literal("given", "withdrawn", "expired", "erased").annotations({
  identifier: "ConsentEventType"
})
export type ConsentEventType = typeof ConsentEventType.Type

/**
 * 27560 "event": a state of the consent and when it began.
 *
 * @example
 * ```ts
 * import type { ConsentEvent } from "@svc/schema"
 *
 * // Events are oldest first: the last one is the record's current state.
 * const currentState = (events: ReadonlyArray<ConsentEvent>) => events.at(-1)
 * const stateSince = (events: ReadonlyArray<ConsentEvent>) => {
 *   const last = currentState(events)
 *   return last === undefined ? "unknown" : `${last.type} since ${last.time.toISOString().slice(0, 10)}`
 * }
 * ```
 */
export const ConsentEvent = Schema.Struct({ type: ConsentEventType, time: Timestamp }).annotations({
  identifier: "ConsentEvent"
})
export type ConsentEvent = typeof ConsentEvent.Type

/**
 * An identity link of the principal (27560 PII principal identifiers besides the subject id).
 *
 * @example
 * ```ts
 * import type { IdentityLinkRecord } from "@svc/schema"
 *
 * // The user accounts an access export can vouch for: verified links only.
 * const verifiedAccounts = (links: ReadonlyArray<IdentityLinkRecord>) =>
 *   links.filter((link) => link.verified).map((link) => `${link.identityProvider}:${link.externalId}`)
 * ```
 */
export const IdentityLinkRecord = Schema.Struct({
  externalId: Schema.String,
  identityProvider: Schema.String,
  verified: Schema.Boolean
}).annotations({ identifier: "IdentityLinkRecord" })
export type IdentityLinkRecord = typeof IdentityLinkRecord.Type

/**
 * 27560 "PII principal". `subjectId` is the svc subject id, or, once erased, `erased_` followed
 * by a keyed hash of it (the operator can recompute it when shown the id; nobody can reverse it).
 *
 * @example
 * ```ts
 * import { RecordPrincipal } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * const principal = Schema.decodeUnknownSync(RecordPrincipal)({
 *   subjectId: "sub_k3Jd9XbQ2mVt7LpA",
 *   externalIds: [{ externalId: "user-42", identityProvider: "auth0", verified: true }]
 * })
 * const erased = principal.subjectId.startsWith("erased_") // false: the record still names its subject
 * ```
 */
export const RecordPrincipal = Schema.Struct({
  subjectId: Schema.String,
  externalIds: Schema.Array(IdentityLinkRecord)
}).annotations({ identifier: "RecordPrincipal" })

/**
 * 27560 "purpose": one category with the receipt the visitor confirmed.
 *
 * @example
 * ```ts
 * import type { RecordPurpose } from "@svc/schema"
 *
 * // The categories an archived record granted, for a data warehouse row.
 * const grantedCategories = (purposes: ReadonlyArray<RecordPurpose>) =>
 *   purposes.filter((purpose) => purpose.granted).map((purpose) => purpose.category).join(",")
 * ```
 */
export const RecordPurpose = Schema.Struct({
  category: OptionalCategory,
  granted: Schema.Boolean,
  confirmedAt: Timestamp
}).annotations({ identifier: "RecordPurpose" })
export type RecordPurpose = typeof RecordPurpose.Type

/**
 * 27560 "notice": what the principal was shown (the policy rule, or the legal document release).
 *
 * @example
 * ```ts
 * import type { RecordNotice } from "@svc/schema"
 *
 * // "Which text did they accept?": the release's version and hash, or the banner rule.
 * const shown = (notice: typeof RecordNotice.Type) =>
 *   notice.legalDocument === null
 *     ? `policy rule ${notice.policyRuleId ?? "unknown"}`
 *     : `version ${notice.legalDocument.version} (sha256 ${notice.legalDocument.hash})`
 * ```
 */
export const RecordNotice = Schema.Struct({
  policyRuleId: Schema.NullOr(Schema.String),
  policyFingerprint: Schema.NullOr(Schema.String),
  legalDocument: Schema.NullOr(
    Schema.Struct({ id: Schema.String, version: Schema.String, hash: Schema.String, effectiveDate: Timestamp })
  )
}).annotations({ identifier: "RecordNotice" })

/**
 * 27560 "collection method" / "presence": how the choice was collected.
 *
 * @example
 * ```ts
 * import type { RecordCollection } from "@svc/schema"
 *
 * // Acts a server recorded on the user's behalf (a sign-up form) rather than a banner or dialog.
 * const recordedByServer = (collection: typeof RecordCollection.Type) => collection.method === "api"
 * ```
 */
export const RecordCollection = Schema.Struct({
  method: Schema.NullOr(ConsentSurface),
  action: Schema.NullOr(ConsentAction),
  journeyId: Schema.NullOr(Schema.String),
  snapshotSource: Schema.NullOr(RuntimePolicySource)
}).annotations({ identifier: "RecordCollection" })

/**
 * The proof fields the policy allowed to keep (masked IP, user agent); `null` once cleared.
 *
 * @example
 * ```ts
 * import type { RecordProof } from "@svc/schema"
 *
 * // `retention.ipAddressDays` and `userAgentDays` clear them: say so rather than print "null".
 * const proofLine = (proof: typeof RecordProof.Type) =>
 *   proof.ipAddress === null && proof.userAgent === null
 *     ? "proof fields cleared by retention, or not stored"
 *     : `from ${proof.ipAddress ?? "?"} with ${proof.userAgent ?? "?"}`
 * ```
 */
export const RecordProof = Schema.Struct({
  ipAddress: Schema.NullOr(Schema.String),
  userAgent: Schema.NullOr(Schema.String)
}).annotations({ identifier: "RecordProof" })

/**
 * Privacy signals the act carried (Global Privacy Control, IAB strings); each present only when it did.
 *
 * @example
 * ```ts
 * import type { RecordSignals } from "@svc/schema"
 *
 * // The TCF string to hand to an ad partner, when the act was made under an IAB rule.
 * const tcStringOf = (signals: typeof RecordSignals.Type | undefined) => signals?.tcString ?? null
 * ```
 */
export const RecordSignals = Schema.Struct({
  gpc: Schema.optional(GpcProof),
  gppString: Schema.optional(Schema.String),
  gppSectionIds: Schema.optional(Schema.Array(Schema.Int)),
  tcString: Schema.optional(Schema.String)
}).annotations({ identifier: "RecordSignals" })

/**
 * One consent act as a 27560-style record.
 *
 * @example
 * ```ts
 * import { StandardConsentRecord } from "@svc/schema"
 * import { Schema } from "effect"
 * import { readFile } from "node:fs/promises"
 *
 * // A record kept in the archive since the act, read back for a regulator's question.
 * const stored: unknown = JSON.parse(await readFile("archive/cns_8fQx2LmZ.json", "utf8"))
 * const record = Schema.decodeUnknownSync(StandardConsentRecord)(stored)
 * console.log(record.policyType, record.givenAt.toISOString(), record.controller.domain, record.events.at(-1)?.type)
 * ```
 */
export const StandardConsentRecord = Schema.Struct({
  schemaVersion: Schema.String,
  recordId: Schema.String,
  principal: RecordPrincipal,
  /** The notice type the act answered: `cookie_banner` or a legal document type. */
  policyType: PolicyType,
  /** Oldest first; `given` always comes first. */
  events: Schema.Array(ConsentEvent),
  purposes: Schema.Array(RecordPurpose),
  vendors: Schema.NullOr(Schema.Struct({ grants: VendorGrants, confirmedAt: Timestamp })),
  notice: RecordNotice,
  legalBasis: Schema.Literal("consent"),
  /** 27560 "jurisdiction": the policy rule's consent model (`null` when the record names no rule). */
  jurisdiction: Schema.Struct({ model: Schema.NullOr(Schema.String) }),
  collection: RecordCollection,
  /** 27560 "PII controller": the site the consent was given on. */
  controller: Schema.Struct({ domain: Schema.String }),
  proof: RecordProof,
  /** Present when the act carried a GPC signal, a GPP string or a TC string. */
  signals: Schema.optional(RecordSignals),
  givenAt: Timestamp,
  recordedAt: Timestamp,
  /**
   * Only in an export asked for with `proofs=true`: the record's inclusion proof in the
   * transparency log (as `GET /log/proof/:consentId` answers it), every record of the export
   * against the same checkpoint; `null` when the record is in no signed checkpoint yet or the
   * backend keeps no log.
   */
  logProof: Schema.optional(Schema.NullOr(ConsentProof))
}).annotations({ identifier: "StandardConsentRecord" })
export type StandardConsentRecord = typeof StandardConsentRecord.Type

/**
 * One subject's part of an access export: identity links and every record.
 *
 * @example
 * ```ts
 * import type { SubjectExportEntry } from "@svc/schema"
 *
 * // One paragraph per browser in the letter answering an access request.
 * const paragraph = (entry: typeof SubjectExportEntry.Type) =>
 *   `Browser ${entry.subjectId}, first seen ${entry.createdAt.toDateString()}: ` +
 *   `${entry.records.length} consent record(s).`
 * ```
 */
export const SubjectExportEntry = Schema.Struct({
  subjectId: Schema.String,
  createdAt: Timestamp,
  identityLinks: Schema.Array(IdentityLinkRecord),
  records: Schema.Array(StandardConsentRecord)
}).annotations({ identifier: "SubjectExportEntry" })

/**
 * `GET /subjects/:id/export`, `GET /subjects/export?externalId=`.
 *
 * @example
 * ```ts
 * import { Subjects } from "@svc/backend"
 * import { SubjectExport } from "@svc/schema"
 * import { Effect, Schema } from "effect"
 *
 * // An access request (GDPR Art. 15): every record of the user's subjects, as JSON for the reply.
 * const accessReport = (userId: string) =>
 *   Effect.gen(function*() {
 *     const exported = yield* Subjects.pipe(Effect.flatMap((subjects) => subjects.export({ externalId: userId })))
 *     return JSON.stringify(Schema.encodeSync(SubjectExport)(exported), null, 2)
 *   })
 * ```
 */
export const SubjectExport = Schema.Struct({
  exportedAt: Timestamp,
  subjects: Schema.Array(SubjectExportEntry)
}).annotations({ identifier: "SubjectExport" })
export type SubjectExport = typeof SubjectExport.Type
