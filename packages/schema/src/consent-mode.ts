import { Schema } from "effect"
import { Category } from "./categories.js"

/**
 * Google Consent Mode v2's consent types.
 *
 * @example
 * ```ts
 * import { GoogleConsentTypes } from "@svc/schema"
 *
 * declare function gtag(...args: ReadonlyArray<unknown>): void
 *
 * // A site with its own banner and no svc bundle: every type is denied until the visitor chooses.
 * const denied = Object.fromEntries(GoogleConsentTypes.map((type) => [type, "denied"]))
 * gtag("consent", "default", { ...denied, wait_for_update: 500 })
 * ```
 */
export const GoogleConsentTypes = [
  "ad_storage",
  "ad_user_data",
  "ad_personalization",
  "analytics_storage",
  "functionality_storage",
  "personalization_storage",
  "security_storage"
] as const
/**
 * One Google Consent Mode v2 consent type, as a schema (`ad_storage`, `analytics_storage`, …).
 *
 * @example
 * ```ts
 * import { GoogleConsentType } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A tag's required consent types, read from the tag manager's export and checked before use.
 * const requires = Schema.decodeUnknownSync(Schema.Array(GoogleConsentType))(["ad_storage", "ad_user_data"])
 * ```
 */
export const GoogleConsentType = Schema.Literal(...GoogleConsentTypes).annotations({ identifier: "GoogleConsentType" })
export type GoogleConsentType = typeof GoogleConsentType.Type

/**
 * Which svc category grants each Google type: the three ad types follow marketing, analytics
 * follows measurement, functionality and personalization their namesakes, security is necessary.
 *
 * @example
 * ```ts
 * import { DEFAULT_CONSENT_MODE_MAPPING, type ResolvedConsentModeMapping } from "@svc/schema"
 *
 * DEFAULT_CONSENT_MODE_MAPPING.analytics_storage // "measurement"
 *
 * // This site personalises content only with marketing consent; the other types keep the default.
 * const mapping = {
 *   ...DEFAULT_CONSENT_MODE_MAPPING,
 *   personalization_storage: "marketing"
 * } satisfies ResolvedConsentModeMapping
 * ```
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

/**
 * Google consent type → svc category, for the types it names (the others keep their mapping).
 *
 * @example
 * ```ts
 * import type { ConsentModeMapping } from "@svc/schema"
 *
 * // An EU rule's own override: ad_user_data follows measurement there instead of marketing.
 * const euOverrides = { ad_user_data: "measurement" } satisfies ConsentModeMapping
 * ```
 */
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

/**
 * Manifest option `consentMode`: writing the block turns Google Consent Mode v2 on.
 *
 * @example
 * ```ts
 * import { defineConfig } from "@svc/backend"
 * import type { ConsentModeOptions } from "@svc/schema"
 *
 * const consentMode: ConsentModeOptions = { mapping: { personalization_storage: "functionality" }, waitForUpdate: 800 }
 *
 * export default defineConfig({
 *   database: { dialect: "sqlite", url: "./svc.db" },
 *   manifest: {
 *     consentMode,
 *     policyRules: [
 *       { id: "eu", match: { countries: ["DE", "FR"] }, model: "opt-in", categories: ["measurement", "marketing"] }
 *     ]
 *   }
 * })
 * ```
 */
export const ConsentModeOptions = Schema.Struct({
  /** Overrides of the default mapping for every rule; a rule's own `consentMode` overrides it again. */
  mapping: Schema.optional(ConsentModeMapping),
  /** `wait_for_update` of the default command, in ms. Default 500. */
  waitForUpdate: Schema.optional(Schema.Int.pipe(Schema.between(0, 10_000)))
}).annotations({ identifier: "ConsentModeOptions" })
export type ConsentModeOptions = typeof ConsentModeOptions.Type

/**
 * The complete mapping: every Google type with its category.
 *
 * @example
 * ```ts
 * import type { Preferences, ResolvedConsentModeMapping } from "@svc/schema"
 *
 * // The `gtag("consent", "update", …)` argument for a visitor's choice.
 * const consentUpdate = (mapping: ResolvedConsentModeMapping, preferences: Preferences) =>
 *   Object.fromEntries(
 *     Object.entries(mapping).map(([type, category]) => [
 *       type,
 *       category === "necessary" || preferences[category] === true ? "granted" : "denied"
 *     ])
 *   )
 * ```
 */
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

/**
 * `/init`'s `consentMode`: the mapping of the visitor's rule, and the `region` of a regional rule.
 *
 * @example
 * ```ts
 * import { ConsentModeInit } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * declare function gtag(...args: ReadonlyArray<unknown>): void
 *
 * // A headless integration pushes the default command itself, from the visitor's `/init`.
 * const init = await fetch("https://consent.example.com/init").then((response) => response.json())
 * if (init.consentMode !== undefined) {
 *   const { mapping, region, waitForUpdate } = Schema.decodeUnknownSync(ConsentModeInit)(init.consentMode)
 *   const denied = Object.fromEntries(Object.keys(mapping).map((type) => [type, "denied"]))
 *   gtag("consent", "default", { ...denied, wait_for_update: waitForUpdate, ...(region === null ? {} : { region }) })
 * }
 * ```
 */
export const ConsentModeInit = Schema.Struct({
  mapping: ResolvedConsentModeMapping,
  waitForUpdate: Schema.Int,
  /** ISO 3166 codes (`DE`, `US-CA`) of the matched rule when it matched by country or region; else null. */
  region: Schema.NullOr(Schema.Array(Schema.String))
}).annotations({ identifier: "ConsentModeInit" })
export type ConsentModeInit = typeof ConsentModeInit.Type
