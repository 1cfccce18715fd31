import { Schema } from "effect"
import { Category } from "./categories.js"

/** Google Consent Mode v2's consent types. */
export const GoogleConsentTypes = [
  "ad_storage",
  "ad_user_data",
  "ad_personalization",
  "analytics_storage",
  "functionality_storage",
  "personalization_storage",
  "security_storage"
] as const
export const GoogleConsentType = Schema.Literal(...GoogleConsentTypes).annotations({ identifier: "GoogleConsentType" })
export type GoogleConsentType = typeof GoogleConsentType.Type

/**
 * Which svc category grants each Google type: the three ad types follow marketing, analytics
 * follows measurement, functionality and personalization their namesakes, security is necessary.
 */
export const DEFAULT_CONSENT_MODE_MAPPING: Readonly<Record<GoogleConsentType, Category>> = {
  ad_storage: "marketing",
  ad_user_data: "marketing",
  ad_personalization: "marketing",
  analytics_storage: "measurement",
  functionality_storage: "functionality",
  personalization_storage: "experience",
  security_storage: "necessary"
}

/** Google consent type → svc category, for the types it names (the others keep their mapping). */
export const ConsentModeMapping = Schema.Struct({
  ad_storage: Schema.optional(Category),
  ad_user_data: Schema.optional(Category),
  ad_personalization: Schema.optional(Category),
  analytics_storage: Schema.optional(Category),
  functionality_storage: Schema.optional(Category),
  personalization_storage: Schema.optional(Category),
  security_storage: Schema.optional(Category)
}).annotations({ identifier: "ConsentModeMapping" })
export type ConsentModeMapping = typeof ConsentModeMapping.Type

/** Manifest option `consentMode`: writing the block turns Google Consent Mode v2 on. */
export const ConsentModeOptions = Schema.Struct({
  /** Overrides of the default mapping for every rule; a rule's own `consentMode` overrides it again. */
  mapping: Schema.optional(ConsentModeMapping),
  /** `wait_for_update` of the default command, in ms. Default 500. */
  waitForUpdate: Schema.optional(Schema.Int.pipe(Schema.between(0, 10_000)))
}).annotations({ identifier: "ConsentModeOptions" })
export type ConsentModeOptions = typeof ConsentModeOptions.Type

/** The complete mapping: every Google type with its category. */
export const ResolvedConsentModeMapping = Schema.Struct({
  ad_storage: Category,
  ad_user_data: Category,
  ad_personalization: Category,
  analytics_storage: Category,
  functionality_storage: Category,
  personalization_storage: Category,
  security_storage: Category
}).annotations({ identifier: "ResolvedConsentModeMapping" })
export type ResolvedConsentModeMapping = typeof ResolvedConsentModeMapping.Type

/** `/init`'s `consentMode`: the mapping of the visitor's rule, and the `region` of a regional rule. */
export const ConsentModeInit = Schema.Struct({
  mapping: ResolvedConsentModeMapping,
  waitForUpdate: Schema.Int,
  /** ISO 3166 codes (`DE`, `US-CA`) of the matched rule when it matched by country or region; else null. */
  region: Schema.NullOr(Schema.Array(Schema.String))
}).annotations({ identifier: "ConsentModeInit" })
export type ConsentModeInit = typeof ConsentModeInit.Type
