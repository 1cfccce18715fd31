import { Schema } from "effect"
import { OptionalCategory } from "./categories.js"
import { ConsentModeMapping } from "./consent-mode.js"

export * from "./consent-mode.js"

/**
 * A rule's consent model: `opt-in` (nothing without consent), `opt-out` (granted until refused),
 * `iab` (IAB TCF v2.2) or `none` (everything granted, nobody asked).
 *
 * @example
 * ```ts
 * import type { PolicyModel } from "@svc/schema"
 *
 * // Whether measurement may start before the visitor has answered (a GPC signal aside).
 * const measuresBeforeChoice = (model: PolicyModel) => model === "opt-out" || model === "none"
 * ```
 */
export const PolicyModel = Schema.Literal("opt-in", "opt-out", "iab", "none").annotations({ identifier: "PolicyModel" })
export type PolicyModel = typeof PolicyModel.Type

/**
 * ISO 3166-1 alpha-2, upper case.
 *
 * @example
 * ```ts
 * import { CountryCode } from "@svc/schema"
 * import { Option, Schema } from "effect"
 *
 * // An edge function reads its CDN's country header, and passes it on only when it is a country code.
 * const countryOf = (request: Request) =>
 *   Option.getOrNull(Schema.decodeUnknownOption(CountryCode)(request.headers.get("cf-ipcountry")))
 * ```
 */
export const CountryCode = Schema.String.pipe(Schema.pattern(/^[A-Z]{2}$/)).annotations({ identifier: "CountryCode" })
/**
 * ISO 3166-2 subdivision with its country: `US-CA`.
 *
 * @example
 * ```ts
 * import { RegionCode } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The US states with their own privacy law, from the legal team's sheet: "US-CA", not "CA" or "California".
 * const statesWithLaw = Schema.decodeUnknownSync(Schema.Array(RegionCode))(["US-CA", "US-CO", "US-CT", "US-VA"])
 * ```
 */
export const RegionCode = Schema.String.pipe(Schema.pattern(/^[A-Z]{2}-[A-Z0-9]{1,3}$/)).annotations({
  identifier: "RegionCode"
})

/**
 * Where a rule applies. A region beats its country; a `fallback` rule answers visitors whose
 * country is unknown, a `default` rule every visitor no other rule matched.
 *
 * @example
 * ```ts
 * import type { PolicyMatch } from "@svc/schema"
 *
 * const california = { regions: ["US-CA"] } satisfies PolicyMatch
 * const eu = { countries: ["AT", "BE", "DE", "FR", "IT", "NL"] } satisfies PolicyMatch
 * const unknownLocation = { fallback: true } satisfies PolicyMatch
 * const everyoneElse = { default: true } satisfies PolicyMatch
 * ```
 */
export const PolicyMatch = Schema.Struct({
  countries: Schema.optional(Schema.Array(CountryCode)),
  regions: Schema.optional(Schema.Array(RegionCode)),
  fallback: Schema.optional(Schema.Literal(true)),
  default: Schema.optional(Schema.Literal(true))
}).annotations({ identifier: "PolicyMatch" })
export type PolicyMatch = typeof PolicyMatch.Type

/**
 * How the browser asks: a banner, straight into the preferences dialog, or not at all.
 *
 * @example
 * ```ts
 * import type { PromptKind } from "@svc/schema"
 *
 * // A custom UI opens what the visitor's rule asks for.
 * const ask = (prompt: PromptKind, ui: { readonly showBanner: () => void; readonly showPreferences: () => void }) => {
 *   if (prompt === "banner") ui.showBanner()
 *   else if (prompt === "dialog") ui.showPreferences()
 * }
 * ```
 */
export const PromptKind = Schema.Literal("banner", "dialog", "none").annotations({ identifier: "PromptKind" })
export type PromptKind = typeof PromptKind.Type

/**
 * A rule's `proof`: what each stored act keeps besides the choice (the masked IP address, the user
 * agent); both are kept unless turned off.
 *
 * @example
 * ```ts
 * import type { PolicyRule, ProofSettings } from "@svc/schema"
 *
 * // Visitors in Germany: keep the user agent as proof, but not even a masked IP address.
 * const proof: typeof ProofSettings.Type = { storeIp: false }
 * const germany = {
 *   id: "de",
 *   match: { countries: ["DE"] },
 *   model: "opt-in",
 *   categories: ["measurement", "marketing"],
 *   proof
 * } satisfies PolicyRule
 * ```
 */
export const ProofSettings = Schema.Struct({
  /** Store the (masked) IP address with each consent. Default `true`. */
  storeIp: Schema.optional(Schema.Boolean),
  /** Store the user agent with each consent. Default `true`. */
  storeUserAgent: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "ProofSettings" })

/**
 * A rule's id: a letter or digit, then up to 63 letters, digits, `_`, `.` or `-`. Records and
 * `/init` name the rule by it.
 *
 * @example
 * ```ts
 * import { PolicyId } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * const isPolicyId = Schema.is(PolicyId)
 * isPolicyId("eu-2026.1") // true
 * isPolicyId("EU rules") // false: no spaces
 * ```
 */
export const PolicyId = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/)).annotations({
  identifier: "PolicyId"
})

/**
 * One authored policy rule (`id`, `match`, `model` and `categories` are the fixed shape; the rest are
 * our extensions, all optional). Unknown keys are refused when the instance is built.
 *
 * @example
 * ```ts
 * import { defineConfig } from "@svc/backend"
 * import type { PolicyRule } from "@svc/schema"
 *
 * // Rules built in code: the opt-in countries come from the legal team's list, and choices there
 * // are asked again after 180 days.
 * const optInCountries = ["AT", "BE", "DE", "FR", "IT", "NL"]
 * const policyRules: ReadonlyArray<PolicyRule> = [
 *   {
 *     id: "eu",
 *     match: { countries: optInCountries },
 *     model: "opt-in",
 *     categories: ["measurement", "marketing"],
 *     validityDays: 180
 *   },
 *   { id: "california", match: { regions: ["US-CA"] }, model: "opt-out", categories: ["measurement", "marketing"] },
 *   { id: "everyone-else", match: { default: true }, model: "none", categories: [] }
 * ]
 *
 * export default defineConfig({ database: { dialect: "sqlite", url: "./svc.db" }, manifest: { policyRules } })
 * ```
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

/**
 * How the visitor's rule matched: by `region`, by `country`, as the `fallback` for an unknown
 * country, or as the `default`.
 *
 * @example
 * ```ts
 * import type { MatchedBy } from "@svc/schema"
 *
 * // The share of page views the fallback rule answered: visitors whose location was unknown.
 * const unknownLocationShare = (matches: ReadonlyArray<MatchedBy>) =>
 *   matches.length === 0 ? 0 : matches.filter((matchedBy) => matchedBy === "fallback").length / matches.length
 * ```
 */
export const MatchedBy = Schema.Literal("region", "country", "fallback", "default").annotations({
  identifier: "MatchedBy"
})
export type MatchedBy = typeof MatchedBy.Type

/**
 * A rule as published: the authored rule with its fingerprint (hash of its behaviour).
 *
 * @example
 * ```ts
 * import type { Manifest, PolicyPack } from "@svc/schema"
 *
 * // Rules whose behaviour changed between two revisions: acts made under the old fingerprint
 * // are no longer `isLatestPolicy`.
 * const changedRules = (before: Manifest, after: Manifest): ReadonlyArray<PolicyPack> =>
 *   after.policyPacks.filter((pack) =>
 *     before.policyPacks.find((old) => old.id === pack.id)?.fingerprint !== pack.fingerprint
 *   )
 * ```
 */
export const PolicyPack = Schema.Struct({
  ...PolicyRule.fields,
  fingerprint: Schema.String
}).annotations({ identifier: "PolicyPack" })
export type PolicyPack = typeof PolicyPack.Type
