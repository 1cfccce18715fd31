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

/** The `schemaVersion` every record carries; a change of shape gets a new one. */
export const CONSENT_RECORD_SCHEMA_VERSION = "svc-consent-record/1 (ISO/IEC TS 27560:2023)"

/** 27560 consent state transitions svc records. `erased`: the principal's personal data was removed. */
export const ConsentEventType = Schema.Literal("given", "withdrawn", "expired", "erased").annotations({
  identifier: "ConsentEventType"
})
export type ConsentEventType = typeof ConsentEventType.Type

/** 27560 "event": a state of the consent and when it began. */
export const ConsentEvent = Schema.Struct({ type: ConsentEventType, time: Timestamp }).annotations({
  identifier: "ConsentEvent"
})
export type ConsentEvent = typeof ConsentEvent.Type

/** An identity link of the principal (27560 PII principal identifiers besides the subject id). */
export const IdentityLinkRecord = Schema.Struct({
  externalId: Schema.String,
  identityProvider: Schema.String,
  verified: Schema.Boolean
}).annotations({ identifier: "IdentityLinkRecord" })
export type IdentityLinkRecord = typeof IdentityLinkRecord.Type

/**
 * 27560 "PII principal". `subjectId` is the svc subject id, or, once erased, `erased_` followed
 * by a keyed hash of it (the operator can recompute it when shown the id; nobody can reverse it).
 */
export const RecordPrincipal = Schema.Struct({
  subjectId: Schema.String,
  externalIds: Schema.Array(IdentityLinkRecord)
}).annotations({ identifier: "RecordPrincipal" })

/** 27560 "purpose": one category with the receipt the visitor confirmed. */
export const RecordPurpose = Schema.Struct({
  category: OptionalCategory,
  granted: Schema.Boolean,
  confirmedAt: Timestamp
}).annotations({ identifier: "RecordPurpose" })
export type RecordPurpose = typeof RecordPurpose.Type

/** 27560 "notice": what the principal was shown (the policy rule, or the legal document release). */
export const RecordNotice = Schema.Struct({
  policyRuleId: Schema.NullOr(Schema.String),
  policyFingerprint: Schema.NullOr(Schema.String),
  legalDocument: Schema.NullOr(
    Schema.Struct({ id: Schema.String, version: Schema.String, hash: Schema.String, effectiveDate: Timestamp })
  )
}).annotations({ identifier: "RecordNotice" })

/** 27560 "collection method" / "presence": how the choice was collected. */
export const RecordCollection = Schema.Struct({
  method: Schema.NullOr(ConsentSurface),
  action: Schema.NullOr(ConsentAction),
  journeyId: Schema.NullOr(Schema.String),
  snapshotSource: Schema.NullOr(RuntimePolicySource)
}).annotations({ identifier: "RecordCollection" })

/** The proof fields the policy allowed to keep (masked IP, user agent); `null` once cleared. */
export const RecordProof = Schema.Struct({
  ipAddress: Schema.NullOr(Schema.String),
  userAgent: Schema.NullOr(Schema.String)
}).annotations({ identifier: "RecordProof" })

/** Privacy signals the act carried (Global Privacy Control, IAB strings); each present only when it did. */
export const RecordSignals = Schema.Struct({
  gpc: Schema.optional(GpcProof),
  gppString: Schema.optional(Schema.String),
  gppSectionIds: Schema.optional(Schema.Array(Schema.Int)),
  tcString: Schema.optional(Schema.String)
}).annotations({ identifier: "RecordSignals" })

/** One consent act as a 27560-style record. */
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

/** One subject's part of an access export: identity links and every record. */
export const SubjectExportEntry = Schema.Struct({
  subjectId: Schema.String,
  createdAt: Timestamp,
  identityLinks: Schema.Array(IdentityLinkRecord),
  records: Schema.Array(StandardConsentRecord)
}).annotations({ identifier: "SubjectExportEntry" })

/** `GET /subjects/:id/export`, `GET /subjects/export?externalId=`. */
export const SubjectExport = Schema.Struct({
  exportedAt: Timestamp,
  subjects: Schema.Array(SubjectExportEntry)
}).annotations({ identifier: "SubjectExport" })
export type SubjectExport = typeof SubjectExport.Type
