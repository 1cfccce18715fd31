import { Schema } from "effect"
import { OptionalCategory } from "./categories.js"
import { ConsentModeMapping } from "./consent-mode.js"

export * from "./consent-mode.js"

export const PolicyModel = Schema.Literal("opt-in", "opt-out", "iab", "none").annotations({ identifier: "PolicyModel" })
export type PolicyModel = typeof PolicyModel.Type

/** ISO 3166-1 alpha-2, upper case. */
export const CountryCode = Schema.String.pipe(Schema.pattern(/^[A-Z]{2}$/)).annotations({ identifier: "CountryCode" })
/** ISO 3166-2 subdivision with its country: `US-CA`. */
export const RegionCode = Schema.String.pipe(Schema.pattern(/^[A-Z]{2}-[A-Z0-9]{1,3}$/)).annotations({
  identifier: "RegionCode"
})

export const PolicyMatch = Schema.Struct({
  countries: Schema.optional(Schema.Array(CountryCode)),
  regions: Schema.optional(Schema.Array(RegionCode)),
  fallback: Schema.optional(Schema.Literal(true)),
  default: Schema.optional(Schema.Literal(true))
}).annotations({ identifier: "PolicyMatch" })
export type PolicyMatch = typeof PolicyMatch.Type

/** How the browser asks: a banner, straight into the preferences dialog, or not at all. */
export const PromptKind = Schema.Literal("banner", "dialog", "none").annotations({ identifier: "PromptKind" })
export type PromptKind = typeof PromptKind.Type

export const ProofSettings = Schema.Struct({
  /** Store the (masked) IP address with each consent. Default `true`. */
  storeIp: Schema.optional(Schema.Boolean),
  /** Store the user agent with each consent. Default `true`. */
  storeUserAgent: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "ProofSettings" })

export const PolicyId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/)).annotations({
  identifier: "PolicyId"
})

/**
 * One authored policy rule (`id`, `match`, `model` and `categories` are the fixed shape; the rest are
 * our extensions, all optional). Unknown keys are refused when the instance is built.
 */
export const PolicyRule = Schema.Struct({
  id: PolicyId,
  match: PolicyMatch,
  model: PolicyModel,
  categories: Schema.Array(OptionalCategory),
  /** How the visitor is asked. Default: `banner`, or `none` for model `none`. */
  prompt: Schema.optional(PromptKind),
  /** Categories pre-checked in the preferences dialog (never granted without an act under opt-in). */
  preselected: Schema.optional(Schema.Array(OptionalCategory)),
  /** Days a recorded choice stays valid before the visitor is asked again. Default 365. */
  validityDays: Schema.optional(Schema.Int.pipe(Schema.between(1, 3650))),
  /** Categories a Global Privacy Control signal denies. Default: `marketing` under opt-out and iab, none otherwise. */
  gpcDenies: Schema.optional(Schema.Array(OptionalCategory)),
  /** What each stored act keeps as proof. */
  proof: Schema.optional(ProofSettings),
  /** Name of a translation override set: `customTranslations[lang].profiles[name]`. */
  translationProfile: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/))),
  /** Google Consent Mode v2: this rule's overrides of `manifest.consentMode.mapping`. */
  consentMode: Schema.optional(ConsentModeMapping)
}).annotations({ identifier: "PolicyRule" })
export type PolicyRule = typeof PolicyRule.Type

export const MatchedBy = Schema.Literal("region", "country", "fallback", "default").annotations({
  identifier: "MatchedBy"
})
export type MatchedBy = typeof MatchedBy.Type

/** A rule as published: the authored rule with its fingerprint (hash of its behaviour). */
export const PolicyPack = Schema.Struct({
  ...PolicyRule.fields,
  fingerprint: Schema.String
}).annotations({ identifier: "PolicyPack" })
export type PolicyPack = typeof PolicyPack.Type
