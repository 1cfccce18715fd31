import { Schema } from "effect"
import { OptionalCategory, Preferences } from "./categories.js"
import { ConsentId, Domain, ExternalId, SafeText, SubjectId, Token } from "./ids.js"
import { ExperimentArm, Journey } from "./manifest.js"
import { Timestamp, TimeInput } from "./time.js"
import { VendorId } from "./vendors.js"

export const legalDocumentTypePattern = /^(privacy_policy|dpa|terms_and_conditions)(_[a-z0-9-]{1,32})?$/

/** `privacy_policy`, `dpa`, `terms_and_conditions`, each optionally `_<suffix>` with suffix `[a-z0-9-]{1,32}`. */
export const LegalDocumentType = Schema.String.pipe(Schema.pattern(legalDocumentTypePattern)).annotations({
  identifier: "LegalDocumentType"
})
export const PolicyType = Schema.Union(Schema.Literal("cookie_banner"), LegalDocumentType).annotations({
  identifier: "PolicyType"
})
export type PolicyType = typeof PolicyType.Type

export const isLegalDocumentType = (type: string): boolean => legalDocumentTypePattern.test(type)

export const ConsentAction = Schema.Literal("accept_all", "reject_all", "custom", "opt_out", "unknown")
export type ConsentAction = typeof ConsentAction.Type
export const ConsentSurface = Schema.Literal("banner", "dialog", "widget", "api")
export type ConsentSurface = typeof ConsentSurface.Type

export const RuntimePolicySource = Schema.Literal("snapshot_token", "snapshot_token_replayed").annotations({
  identifier: "RuntimePolicySource"
})
export type RuntimePolicySource = typeof RuntimePolicySource.Type

/** A category receipt as sent: the value the visitor confirmed, and when. */
export const ReceiptInput = Schema.Struct({ value: Schema.Boolean, confirmedAt: TimeInput })
export const Receipt = Schema.Struct({ value: Schema.Boolean, confirmedAt: Timestamp }).annotations({
  identifier: "Receipt"
})
export type Receipt = typeof Receipt.Type

/** Vendor id to grant, as answered (stored maps are shown as stored). */
export const VendorGrants = Schema.Record({ key: Schema.String, value: Schema.Boolean }).annotations({
  identifier: "VendorGrants"
})
/**
 * Vendor id to grant, as sent. A key that is not a valid `VendorId` (reserved, too long, padded,
 * control characters) is refused rather than skipped: a record silently drops keys its key schema rejects.
 */
export const VendorGrantsInput = Schema.Record({ key: VendorId, value: Schema.Boolean }).annotations({
  identifier: "VendorGrantsInput",
  parseOptions: { onExcessProperty: "error" }
})
export const VendorChoiceInput = Schema.Struct({ grants: VendorGrantsInput, confirmedAt: TimeInput })
export const VendorChoice = Schema.Struct({ grants: VendorGrants, confirmedAt: Timestamp }).annotations({
  identifier: "VendorChoice"
})
export type VendorChoice = typeof VendorChoice.Type

const SaveConsentFields = Schema.Struct({
  type: PolicyType,
  domain: Domain,
  subjectId: SubjectId,
  givenAt: TimeInput,
  preferences: Schema.optional(Preferences),
  receipts: Schema.optional(Schema.partial(Schema.Record({ key: OptionalCategory, value: ReceiptInput }))),
  vendorChoice: Schema.optional(VendorChoiceInput),
  policySnapshotToken: Schema.optional(SafeText(4096)),
  journey: Schema.optional(Journey),
  externalSubjectId: Schema.optional(ExternalId),
  identityProvider: Schema.optional(Token(64)),
  identityToken: Schema.optional(SafeText(4096)),
  policyHash: Schema.optional(Token(255)),
  policyId: Schema.optional(Token(64)),
  documentSnapshotToken: Schema.optional(SafeText(4096)),
  experiment: Schema.optional(ExperimentArm),
  action: Schema.optional(ConsentAction),
  surface: Schema.optional(ConsentSurface),
  timeToDecisionMs: Schema.optional(Schema.Int.pipe(Schema.between(0, 86_400_000))),
  /** IAB Global Privacy Platform string; refused with 400 when it does not decode. */
  gppString: Schema.optional(SafeText(8192)),
  /** IAB TCF v2 TC string (IAB rules); refused with 400 when it does not decode. */
  tcString: Schema.optional(SafeText(8192))
})

/** `POST /subjects` body. `preferences` is required for `cookie_banner`. */
export const SaveConsentRequest = SaveConsentFields.pipe(
  Schema.filter((body) =>
    body.type === "cookie_banner" && body.preferences === undefined
      ? { path: ["preferences"], message: "preferences is required for type cookie_banner" }
      : undefined
  )
).annotations({ identifier: "SaveConsentRequest" })
export type SaveConsentRequest = typeof SaveConsentRequest.Type

/** Merged vendor decisions of a subject (spec "Subject vendor choice" rules 1 to 5). */
export const SubjectVendorChoice = Schema.Struct({
  /** Every vendor some act named: the latest act naming it decides (rules 1, 2, 4). */
  grants: VendorGrants,
  /** Time of the oldest decision still in `grants` (rule 3). */
  confirmedAt: Timestamp,
  /** Declared vendors no act ever named, following their category (rule 5). */
  derived: VendorGrants
}).annotations({ identifier: "SubjectVendorChoice" })
export type SubjectVendorChoice = typeof SubjectVendorChoice.Type

/** Global Privacy Control on a stored act: what the rule's `gpcDenies` denied, and which of those the act had granted. */
export const GpcProof = Schema.Struct({
  denied: Schema.Array(OptionalCategory),
  overridden: Schema.Array(OptionalCategory)
}).annotations({ identifier: "GpcProof" })
export type GpcProof = typeof GpcProof.Type

export const SaveConsentResponse = Schema.Struct({
  subjectId: SubjectId,
  consentId: ConsentId,
  appliedPreferences: Schema.NullOr(Preferences),
  givenAt: Timestamp,
  runtimePolicySource: Schema.NullOr(RuntimePolicySource),
  subjectVendorChoice: Schema.optional(SubjectVendorChoice),
  /** Present when a GPC signal applied: the categories the save granted that GPC stored as denied. */
  gpcOverridden: Schema.optional(Schema.Array(OptionalCategory))
}).annotations({ identifier: "SaveConsentResponse" })
export type SaveConsentResponse = typeof SaveConsentResponse.Type

/** A stored consent act, as read back. */
export const ConsentRecord = Schema.Struct({
  consentId: ConsentId,
  type: PolicyType,
  domain: Schema.String,
  givenAt: Timestamp,
  createdAt: Timestamp,
  preferences: Schema.NullOr(Preferences),
  receipts: Schema.partial(Schema.Record({ key: OptionalCategory, value: Receipt })),
  vendorChoice: Schema.NullOr(VendorChoice),
  isLatestPolicy: Schema.Boolean,
  policyId: Schema.NullOr(Schema.String),
  policyFingerprint: Schema.NullOr(Schema.String),
  policyVersion: Schema.NullOr(Schema.String),
  policyHash: Schema.NullOr(Schema.String),
  policyEffectiveDate: Schema.NullOr(Timestamp),
  runtimePolicySource: Schema.NullOr(RuntimePolicySource),
  journeyId: Schema.NullOr(Schema.String),
  /** Present when a Global Privacy Control signal applied to the act. */
  gpc: Schema.optional(GpcProof),
  /** The GPP string the save carried, and the section ids its header lists. */
  gppString: Schema.optional(Schema.String),
  gppSectionIds: Schema.optional(Schema.Array(Schema.Int)),
  /** The TCF v2 TC string the save carried. */
  tcString: Schema.optional(Schema.String)
}).annotations({ identifier: "ConsentRecord" })
export type ConsentRecord = typeof ConsentRecord.Type

export const Subject = Schema.Struct({
  id: SubjectId,
  externalId: Schema.NullOr(Schema.String),
  identityProvider: Schema.NullOr(Schema.String),
  verified: Schema.Boolean,
  createdAt: Timestamp
}).annotations({ identifier: "Subject" })
export type Subject = typeof Subject.Type

export const SubjectChoice = Schema.Struct({
  categories: Schema.partial(Schema.Record({ key: OptionalCategory, value: Receipt }))
}).annotations({ identifier: "SubjectChoice" })
export type SubjectChoice = typeof SubjectChoice.Type

/** `GET /subjects/:id`. */
export const SubjectView = Schema.Struct({
  subject: Subject,
  consents: Schema.Array(ConsentRecord),
  isValid: Schema.Boolean,
  subjectChoice: Schema.NullOr(SubjectChoice),
  subjectVendorChoice: Schema.NullOr(SubjectVendorChoice)
}).annotations({ identifier: "SubjectView" })
export type SubjectView = typeof SubjectView.Type

/** `PATCH /subjects/:id` body. */
export const LinkIdentityRequest = Schema.Struct({
  externalId: ExternalId,
  identityProvider: Schema.optional(Token(64)),
  identityToken: Schema.optional(SafeText(4096))
}).annotations({ identifier: "LinkIdentityRequest" })
export type LinkIdentityRequest = typeof LinkIdentityRequest.Type

export const LinkedSubject = Schema.Struct({
  id: SubjectId,
  externalId: Schema.String,
  identityProvider: Schema.String,
  verified: Schema.Boolean
}).annotations({ identifier: "LinkedSubject" })
export const LinkIdentityResponse = Schema.Struct({ subject: LinkedSubject }).annotations({
  identifier: "LinkIdentityResponse"
})

/** `GET /subjects?externalId=`. */
export const SubjectList = Schema.Struct({
  subjects: Schema.Array(
    Schema.Struct({
      id: SubjectId,
      externalId: Schema.String,
      identityProvider: Schema.String,
      createdAt: Timestamp,
      consents: Schema.Array(ConsentRecord)
    })
  )
}).annotations({ identifier: "SubjectList" })
export type SubjectList = typeof SubjectList.Type

export const ConsentCheckResult = Schema.Struct({ hasConsent: Schema.Boolean, isLatestPolicy: Schema.Boolean })
/** `GET /consents/check`. */
export const ConsentCheck = Schema.Struct({
  results: Schema.Record({ key: Schema.String, value: ConsentCheckResult })
}).annotations({ identifier: "ConsentCheck" })
export type ConsentCheck = typeof ConsentCheck.Type
