import { Schema } from "effect"
import { OptionalCategory, Preferences } from "./categories.js"
import { ConsentId, Domain, ExternalId, SafeText, SubjectId, Token } from "./ids.js"
import { ExperimentArm, Journey } from "./manifest.js"
import { Timestamp, TimeInput } from "./time.js"
import { VendorId } from "./vendors.js"

/**
 * The pattern of a legal document type (`LegalDocumentType`); its first group is the base type,
 * its second the `_<suffix>` of a variant.
 *
 * @example
 * ```ts
 * import { legalDocumentTypePattern } from "@svc/schema"
 *
 * // A variant shares its base type's wording in the app's document picker.
 * const [, base, variant] = legalDocumentTypePattern.exec("terms_and_conditions_b2b") ?? []
 * // base: "terms_and_conditions", variant: "_b2b"
 * ```
 */
export const legalDocumentTypePattern = /^(privacy_policy|dpa|terms_and_conditions)(_[a-z0-9-]{1,32})?$/

/**
 * `privacy_policy`, `dpa`, `terms_and_conditions`, each optionally `_<suffix>` with suffix `[a-z0-9-]{1,32}`.
 *
 * @example
 * ```ts
 * import { LegalDocumentType } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * const isLegalDocument = Schema.is(LegalDocumentType)
 * isLegalDocument("privacy_policy") // true
 * isLegalDocument("terms_and_conditions_b2b") // true: a variant with its own releases
 * isLegalDocument("cookie_banner") // false: a policy type, but not a legal document
 * ```
 */
export const LegalDocumentType = Schema.String.pipe(Schema.pattern(legalDocumentTypePattern)).annotations({
  identifier: "LegalDocumentType"
})
/**
 * What a consent act answers: `cookie_banner` or a legal document type.
 *
 * @example
 * ```ts
 * import { PolicyType } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The documents a checkout requires, from the environment, checked once at startup.
 * const required: ReadonlyArray<PolicyType> = Schema.decodeUnknownSync(Schema.Array(PolicyType))(
 *   (process.env.CHECKOUT_POLICIES ?? "terms_and_conditions,privacy_policy").split(",")
 * )
 * ```
 */
export const PolicyType = Schema.Union(Schema.Literal("cookie_banner"), LegalDocumentType).annotations({
  identifier: "PolicyType"
})
export type PolicyType = typeof PolicyType.Type

/**
 * True when a policy type is a legal document type, false for `cookie_banner` (and anything else).
 *
 * @example
 * ```ts
 * import { type ConsentRecord, isLegalDocumentType } from "@svc/schema"
 *
 * // The documents a subject accepted, without its cookie-banner choices.
 * const acceptedDocuments = (consents: ReadonlyArray<ConsentRecord>) =>
 *   consents
 *     .filter((consent) => isLegalDocumentType(consent.type))
 *     .map((consent) => ({ type: consent.type, version: consent.policyVersion, acceptedAt: consent.givenAt }))
 * ```
 */
export const isLegalDocumentType = (type: string): boolean => legalDocumentTypePattern.test(type)

/**
 * Which button decided a cookie-banner act: accept all, reject all, a custom selection, an opt-out,
 * or `unknown` when the page did not say.
 *
 * @example
 * ```ts
 * import type { ConsentAction } from "@svc/schema"
 *
 * // A custom banner names the button that was pressed; the experiment summary counts per action.
 * const actionOf = (button: "accept" | "reject" | "save-selection"): ConsentAction =>
 *   button === "accept" ? "accept_all" : button === "reject" ? "reject_all" : "custom"
 * ```
 */
export const ConsentAction = Schema.Literal("accept_all", "reject_all", "custom", "opt_out", "unknown")
export type ConsentAction = typeof ConsentAction.Type
/**
 * Where a choice was made: the banner, the preferences dialog, an embedded widget, or a server (`api`).
 *
 * @example
 * ```ts
 * import { ConsentSurface } from "@svc/schema"
 * import { Option, Schema } from "effect"
 *
 * // The page marks each consent form with data-surface="banner" | "dialog" | "widget".
 * const form = document.querySelector<HTMLElement>("[data-surface]")
 * const surface = Option.getOrUndefined(Schema.decodeUnknownOption(ConsentSurface)(form?.dataset.surface))
 * ```
 */
export const ConsentSurface = Schema.Literal("banner", "dialog", "widget", "api")
export type ConsentSurface = typeof ConsentSurface.Type

/**
 * How the rule a cookie-banner act answered was established: from the `/init` policy snapshot token
 * (`snapshot_token`), or from that token on a late save replayed by the browser (`snapshot_token_replayed`).
 *
 * @example
 * ```ts
 * import type { RuntimePolicySource } from "@svc/schema"
 *
 * // An audit report's column for `runtimePolicySource` (null: the act carried no token).
 * const provenance = (source: RuntimePolicySource | null) =>
 *   source === "snapshot_token"
 *     ? "signed snapshot"
 *     : source === "snapshot_token_replayed"
 *     ? "late save, checked against its snapshot"
 *     : "no snapshot"
 * ```
 */
export const RuntimePolicySource = Schema.Literal("snapshot_token", "snapshot_token_replayed").annotations({
  identifier: "RuntimePolicySource"
})
export type RuntimePolicySource = typeof RuntimePolicySource.Type

/**
 * A category receipt as sent: the value the visitor confirmed, and when.
 *
 * @example
 * ```ts
 * import { ReceiptInput } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // `confirmedAt` may be sent as epoch milliseconds or ISO 8601; both decode to a Date.
 * const receipts = Schema.decodeUnknownSync(Schema.Array(ReceiptInput))([
 *   { value: true, confirmedAt: 1768471200000 },
 *   { value: false, confirmedAt: "2026-01-15T10:00:00Z" }
 * ])
 * ```
 */
export const ReceiptInput = Schema.Struct({ value: Schema.Boolean, confirmedAt: TimeInput })
/**
 * A category receipt as read back: the value the visitor confirmed and when, as a `Date`.
 *
 * @example
 * ```ts
 * import type { Receipt } from "@svc/schema"
 *
 * // Ask again when the visitor's answer is more than a year old.
 * const isStale = (receipt: Receipt, now: Date) => now.getTime() - receipt.confirmedAt.getTime() > 365 * 86_400_000
 * ```
 */
export const Receipt = Schema.Struct({ value: Schema.Boolean, confirmedAt: Timestamp }).annotations({
  identifier: "Receipt"
})
export type Receipt = typeof Receipt.Type

/**
 * Vendor id to grant, as answered (stored maps are shown as stored).
 *
 * @example
 * ```ts
 * import { VendorGrants } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * const grants = Schema.decodeUnknownSync(VendorGrants)({ "google-analytics": true, hotjar: false })
 * const allowed = Object.keys(grants).filter((vendor) => grants[vendor] === true) // ["google-analytics"]
 * ```
 */
export const VendorGrants = Schema.Record({ key: Schema.String, value: Schema.Boolean }).annotations({
  identifier: "VendorGrants"
})
/**
 * Vendor id to grant, as sent. A key that is not a valid `VendorId` (reserved, too long, padded,
 * control characters) is refused rather than skipped: a record silently drops keys its key schema rejects.
 *
 * @example
 * ```ts
 * import { VendorGrantsInput } from "@svc/schema"
 * import { Either, Schema } from "effect"
 *
 * const decode = Schema.decodeUnknownEither(VendorGrantsInput)
 * Either.isRight(decode({ "google-analytics": true, hotjar: false })) // true
 * Either.isRight(decode(JSON.parse(`{ "__proto__": true }`))) // false: a reserved id is refused, not dropped
 * ```
 */
export const VendorGrantsInput = Schema.Record({ key: VendorId, value: Schema.Boolean }).annotations({
  identifier: "VendorGrantsInput",
  parseOptions: { onExcessProperty: "error" }
})
/**
 * A vendor choice as sent with a save: the grant map and when the visitor confirmed it.
 *
 * @example
 * ```ts
 * import { VendorChoiceInput } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // Encoding writes the Date as ISO 8601, ready for the `vendorChoice` of a `POST /subjects` body.
 * const vendorChoice = Schema.encodeSync(VendorChoiceInput)({
 *   grants: { "google-analytics": true, hotjar: false },
 *   confirmedAt: new Date("2026-01-15T10:00:00Z")
 * })
 * // { grants: { "google-analytics": true, hotjar: false }, confirmedAt: "2026-01-15T10:00:00.000Z" }
 * ```
 */
export const VendorChoiceInput = Schema.Struct({ grants: VendorGrantsInput, confirmedAt: TimeInput })
/**
 * A stored act's vendor choice: the grant map as sent and when it was confirmed.
 *
 * @example
 * ```ts
 * import type { ConsentRecord, VendorChoice } from "@svc/schema"
 *
 * // The most recently confirmed vendor choice among a subject's acts.
 * const latestVendorChoice = (consents: ReadonlyArray<ConsentRecord>): VendorChoice | undefined =>
 *   consents
 *     .flatMap((consent) => (consent.vendorChoice === null ? [] : [consent.vendorChoice]))
 *     .sort((a, b) => b.confirmedAt.getTime() - a.confirmedAt.getTime())[0]
 * ```
 */
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

/**
 * `POST /subjects` body. `preferences` is required for `cookie_banner`.
 *
 * @example
 * ```ts
 * import { SaveConsentRequest, SubjectId } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The visitor ticked "I accept the privacy policy"; encoding turns `givenAt` into ISO 8601.
 * const body = Schema.encodeSync(SaveConsentRequest)({
 *   type: "privacy_policy",
 *   domain: "www.example.com",
 *   subjectId: SubjectId.make("sub_k3Jd9XbQ2mVt7LpA"),
 *   givenAt: new Date()
 * })
 * await fetch("https://consent.example.com/subjects", {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify(body)
 * })
 * ```
 *
 * @example
 * ```ts
 * import { SaveConsentRequest } from "@svc/schema"
 * import { Either, Schema } from "effect"
 *
 * // A cookie-banner act must say what was chosen.
 * const decoded = Schema.decodeUnknownEither(SaveConsentRequest)({
 *   type: "cookie_banner",
 *   domain: "www.example.com",
 *   subjectId: "sub_k3Jd9XbQ2mVt7LpA",
 *   givenAt: "2026-01-15T10:00:00Z"
 * })
 * Either.isLeft(decoded) // true: preferences is required for type cookie_banner
 * ```
 */
export const SaveConsentRequest = SaveConsentFields.pipe(
  Schema.filter((body) =>
    body.type === "cookie_banner" && body.preferences === undefined
      ? { path: ["preferences"], message: "preferences is required for type cookie_banner" }
      : undefined
  )
).annotations({ identifier: "SaveConsentRequest" })
export type SaveConsentRequest = typeof SaveConsentRequest.Type

/**
 * Merged vendor decisions of a subject (spec "Subject vendor choice" rules 1 to 5).
 *
 * @example
 * ```ts
 * import type { SubjectVendorChoice } from "@svc/schema"
 *
 * // Load a vendor's script only when an act granted it, or, never named, its category is granted.
 * const mayLoad = (choice: SubjectVendorChoice | null, vendorId: string) =>
 *   choice !== null && (choice.grants[vendorId] ?? choice.derived[vendorId]) === true
 * ```
 */
export const SubjectVendorChoice = Schema.Struct({
  /** Every vendor some act named: the latest act naming it decides (rules 1, 2, 4). */
  grants: VendorGrants,
  /** Time of the oldest decision still in `grants` (rule 3). */
  confirmedAt: Timestamp,
  /** Declared vendors no act ever named, following their category (rule 5). */
  derived: VendorGrants
}).annotations({ identifier: "SubjectVendorChoice" })
export type SubjectVendorChoice = typeof SubjectVendorChoice.Type

/**
 * Global Privacy Control on a stored act: what the rule's `gpcDenies` denied, and which of those the act had granted.
 *
 * @example
 * ```ts
 * import type { GpcProof } from "@svc/schema"
 *
 * // A support tool explains why a category the visitor ticked is stored as denied.
 * const explainGpc = (gpc: GpcProof) =>
 *   gpc.overridden.length === 0
 *     ? `GPC denied ${gpc.denied.join(", ")}`
 *     : `GPC denied ${gpc.denied.join(", ")}; ${gpc.overridden.join(", ")} ticked but stored as denied`
 * ```
 */
export const GpcProof = Schema.Struct({
  denied: Schema.Array(OptionalCategory),
  overridden: Schema.Array(OptionalCategory)
}).annotations({ identifier: "GpcProof" })
export type GpcProof = typeof GpcProof.Type

/**
 * `POST /subjects` answer: the stored act's ids, the preferences as applied, and the subject's
 * merged vendor choice when vendors were decided.
 *
 * @example
 * ```ts
 * import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
 * import { SaveConsentResponse } from "@svc/schema"
 * import { Effect } from "effect"
 *
 * const save = (body: unknown) =>
 *   Effect.gen(function*() {
 *     const request = HttpClientRequest.post("https://consent.example.com/subjects").pipe(
 *       HttpClientRequest.bodyUnsafeJson(body)
 *     )
 *     const response = yield* HttpClient.execute(request)
 *     const saved = yield* HttpClientResponse.schemaBodyJson(SaveConsentResponse)(response)
 *     if (saved.gpcOverridden !== undefined) yield* Effect.logInfo(`GPC kept ${saved.gpcOverridden.join(", ")} denied`)
 *     return saved.consentId
 *   })
 * ```
 */
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

/**
 * A stored consent act, as read back.
 *
 * @example
 * ```ts
 * import type { ConsentRecord } from "@svc/schema"
 *
 * // One line per act in a support tool: when, what, which version, and whether it is still current.
 * const describe = (consent: ConsentRecord) =>
 *   `${consent.givenAt.toISOString()} ${consent.type} ${consent.policyVersion ?? consent.policyId ?? ""}` +
 *   (consent.isLatestPolicy ? "" : " (outdated)")
 * ```
 */
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

/**
 * A subject (one browser's consent identity, `sub_…`) and the identity it is linked to, if any.
 *
 * @example
 * ```ts
 * import type { Subject } from "@svc/schema"
 *
 * // Only a verified link says this browser belongs to the app's user.
 * const linkedUser = (subject: Subject) => (subject.verified ? subject.externalId : null)
 * ```
 */
export const Subject = Schema.Struct({
  id: SubjectId,
  externalId: Schema.NullOr(Schema.String),
  identityProvider: Schema.NullOr(Schema.String),
  verified: Schema.Boolean,
  createdAt: Timestamp
}).annotations({ identifier: "Subject" })
export type Subject = typeof Subject.Type

/**
 * `subjectChoice` of `GET /subjects/:id`: the latest receipt of each category across the subject's
 * cookie-banner acts (a category never answered is absent).
 *
 * @example
 * ```ts
 * import type { SubjectChoice } from "@svc/schema"
 *
 * // Analytics may run when the latest answer for measurement was yes.
 * const measurementAllowed = (choice: SubjectChoice | null) => choice?.categories.measurement?.value === true
 * ```
 */
export const SubjectChoice = Schema.Struct({
  categories: Schema.partial(Schema.Record({ key: OptionalCategory, value: Receipt }))
}).annotations({ identifier: "SubjectChoice" })
export type SubjectChoice = typeof SubjectChoice.Type

/**
 * `GET /subjects/:id`.
 *
 * @example
 * ```ts
 * import { SubjectView } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // Server-side rendering decides whether to show the banner; the subject id is the capability, no key.
 * const response = await fetch("https://consent.example.com/subjects/sub_k3Jd9XbQ2mVt7LpA?type=cookie_banner")
 * const view = Schema.decodeUnknownSync(SubjectView)(await response.json())
 * const showBanner = !view.isValid
 * ```
 */
export const SubjectView = Schema.Struct({
  subject: Subject,
  consents: Schema.Array(ConsentRecord),
  isValid: Schema.Boolean,
  subjectChoice: Schema.NullOr(SubjectChoice),
  subjectVendorChoice: Schema.NullOr(SubjectVendorChoice)
}).annotations({ identifier: "SubjectView" })
export type SubjectView = typeof SubjectView.Type

/**
 * `PATCH /subjects/:id` body.
 *
 * @example
 * ```ts
 * import { LinkIdentityRequest } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // After sign-in the app's server links the visitor's subject to its user; the API key makes it verified.
 * const body = Schema.encodeSync(LinkIdentityRequest)({ externalId: "user-42", identityProvider: "auth0" })
 * await fetch("https://consent.example.com/subjects/sub_k3Jd9XbQ2mVt7LpA", {
 *   method: "PATCH",
 *   headers: { authorization: `Bearer ${process.env.SVC_API_KEY}`, "content-type": "application/json" },
 *   body: JSON.stringify(body)
 * })
 * ```
 */
export const LinkIdentityRequest = Schema.Struct({
  externalId: ExternalId,
  identityProvider: Schema.optional(Token(64)),
  identityToken: Schema.optional(SafeText(4096))
}).annotations({ identifier: "LinkIdentityRequest" })
export type LinkIdentityRequest = typeof LinkIdentityRequest.Type

/**
 * A subject as linked: its id and the identity it is linked to, verified or not.
 *
 * @example
 * ```ts
 * import { LinkedSubject } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * const subject = Schema.decodeUnknownSync(LinkedSubject)({
 *   id: "sub_k3Jd9XbQ2mVt7LpA",
 *   externalId: "user-42",
 *   identityProvider: "external", // the provider a link gets when it names none
 *   verified: true
 * })
 * ```
 */
export const LinkedSubject = Schema.Struct({
  id: SubjectId,
  externalId: Schema.String,
  identityProvider: Schema.String,
  verified: Schema.Boolean
}).annotations({ identifier: "LinkedSubject" })
/**
 * `PATCH /subjects/:id` answer: the subject as now linked.
 *
 * @example
 * ```ts
 * import { LinkIdentityResponse } from "@svc/schema"
 * import { Effect, Schema } from "effect"
 *
 * // Whether the link counts for checks by external id; an unexpected body is logged and treated as no.
 * const isVerified = (body: unknown) =>
 *   Schema.decodeUnknown(LinkIdentityResponse)(body).pipe(
 *     Effect.map(({ subject }) => subject.verified),
 *     Effect.catchTag("ParseError", (error) => Effect.as(Effect.logWarning(error.message), false))
 *   )
 * ```
 */
export const LinkIdentityResponse = Schema.Struct({ subject: LinkedSubject }).annotations({
  identifier: "LinkIdentityResponse"
})

/**
 * `GET /subjects?externalId=`.
 *
 * @example
 * ```ts
 * import type { SubjectList } from "@svc/schema"
 *
 * // An account's privacy page lists the user's browsers (one subject each), newest first.
 * const devices = (list: SubjectList) =>
 *   list.subjects
 *     .toSorted((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
 *     .map((subject) => ({ since: subject.createdAt, choices: subject.consents.length }))
 * ```
 */
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

/**
 * One type's answer in `GET /consents/check`: a record of the type exists (`hasConsent`; a
 * rejection is a record too), and one was made under the current rule or release (`isLatestPolicy`).
 *
 * @example
 * ```ts
 * import type { ConsentCheckResult } from "@svc/schema"
 *
 * // Mailing needs the current privacy policy accepted, not only an older release.
 * const mayMail = (result: typeof ConsentCheckResult.Type | undefined) =>
 *   result?.hasConsent === true && result.isLatestPolicy
 * ```
 */
export const ConsentCheckResult = Schema.Struct({ hasConsent: Schema.Boolean, isLatestPolicy: Schema.Boolean })
/**
 * `GET /consents/check`.
 *
 * @example
 * ```ts
 * import { ConsentCheck } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * const query = new URLSearchParams({ externalId: "user-42", type: "privacy_policy,terms_and_conditions" })
 * const response = await fetch(`https://consent.example.com/consents/check?${query}`, {
 *   headers: { authorization: `Bearer ${process.env.SVC_API_KEY}` }
 * })
 * const { results } = Schema.decodeUnknownSync(ConsentCheck)(await response.json())
 * const mustAcceptTerms = results.terms_and_conditions?.isLatestPolicy !== true
 * ```
 */
export const ConsentCheck = Schema.Struct({
  results: Schema.Record({ key: Schema.String, value: ConsentCheckResult })
}).annotations({ identifier: "ConsentCheck" })
export type ConsentCheck = typeof ConsentCheck.Type
