import { Schema } from "effect"
import { ConsentModeInit, ConsentModeOptions, MatchedBy, PolicyModel, PolicyPack, PolicyRule } from "./policy.js"
import { Token } from "./ids.js"
import { Gvl, Vendor } from "./vendors.js"

/**
 * Who runs the backend, as the instance's `hosting` option says: the site's operator
 * (`self-hosted`, the default) or a service on its behalf (`managed`).
 *
 * @example
 * ```ts
 * import type { Hosting } from "@svc/schema"
 *
 * // The privacy page says where consent records are kept.
 * const storageNote = (hosting: Hosting) =>
 *   hosting === "self-hosted"
 *     ? "Consent records are kept on our own servers."
 *     : "Consent records are kept by our consent provider."
 * ```
 */
export const Hosting = Schema.Literal("self-hosted", "managed").annotations({ identifier: "Hosting" })
export type Hosting = typeof Hosting.Type

/**
 * The manifest's `branding` option (default `svc`), published by `/manifest` and `/init` for the
 * banner to read.
 *
 * @example
 * ```ts
 * import type { Branding } from "@svc/schema"
 *
 * // A custom banner credits svc unless the operator wrote `branding: "none"`.
 * const credit = (branding: Branding) => (branding === "svc" ? "Consent managed with svc" : null)
 * ```
 */
export const Branding = Schema.Literal("svc", "none").annotations({ identifier: "Branding" })
export type Branding = typeof Branding.Type

/**
 * A translation set: nested string tables (`{ banner: { title: "..." } }`).
 *
 * @example
 * ```ts
 * import type { Translations } from "@svc/schema"
 *
 * // The shop's own wording of the German banner (`manifest.customTranslations.de`).
 * const de = {
 *   banner: { title: "Ihre Privatsphäre ist uns wichtig", acceptAll: "Alle akzeptieren", rejectAll: "Nur notwendige" },
 *   widget: { label: "Datenschutz-Einstellungen" }
 * } satisfies Translations
 * ```
 */
export interface Translations {
  readonly [key: string]: string | Translations
}
export const Translations: Schema.Schema<Translations> = Schema.Record({
  key: Schema.String,
  value: Schema.Union(Schema.String, Schema.suspend(() => Translations))
}).annotations({ identifier: "Translations" })

/**
 * Language code: `en`, `de`, `pt-BR`.
 *
 * @example
 * ```ts
 * import { LanguageCode } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The language picked in the site's switcher, checked before it goes into the manifest URL.
 * const language = Schema.decodeUnknownSync(LanguageCode)("pt-BR")
 * const manifestUrl = `https://consent.example.com/manifest?language=${language}`
 * ```
 */
export const LanguageCode = Schema.String.pipe(Schema.pattern(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/)).annotations({
  identifier: "LanguageCode"
})

/**
 * Manifest option `iab`: the IAB TCF v2.2 CMP (`enabled`, needed by every rule of model `iab`), its
 * CMP id, vendors outside the Global Vendor List, and where the list comes from.
 *
 * @example
 * ```ts
 * import { defineConfig } from "@svc/backend"
 * import type { IabOptions } from "@svc/schema"
 *
 * const iab: typeof IabOptions.Type = {
 *   enabled: true,
 *   cmpId: 300,
 *   customVendors: [{ id: "in-house-ads", name: "In-house ads", category: "marketing" }]
 * }
 * export default defineConfig({
 *   database: { dialect: "sqlite", url: "./svc.db" },
 *   gvl: { file: "./vendor-list.json", vendorIds: [755, 793] },
 *   manifest: {
 *     iab,
 *     policyRules: [{ id: "eu", match: { countries: ["FR"] }, model: "iab", categories: ["measurement", "marketing"] }]
 *   }
 * })
 * ```
 */
export const IabOptions = Schema.Struct({
  enabled: Schema.Boolean,
  cmpId: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  customVendors: Schema.optional(Schema.Array(Vendor)),
  /** GVL source for the server-side loader when the `gvl` option names none. */
  endpoint: Schema.optional(Schema.String)
}).annotations({ identifier: "IabOptions" })

/**
 * The authored `manifest` option. Unknown keys are refused when the instance is built.
 *
 * @example
 * ```ts
 * import { defineConfig } from "@svc/backend"
 * import { ManifestOptions } from "@svc/schema"
 * import { Schema } from "effect"
 * import { readFileSync } from "node:fs"
 *
 * // The legal team edits manifest.json; a misspelt key or a wrong value fails here, naming its path.
 * const authored: unknown = JSON.parse(readFileSync("manifest.json", "utf8"))
 * const manifest = Schema.decodeUnknownSync(ManifestOptions, { onExcessProperty: "error" })(authored)
 *
 * export default defineConfig({ database: { dialect: "postgres", url: process.env.DATABASE_URL! }, manifest })
 * ```
 */
export const ManifestOptions = Schema.Struct({
  policyRules: Schema.Array(PolicyRule),
  appName: Schema.optional(Schema.String),
  branding: Schema.optional(Branding),
  customTranslations: Schema.optional(Schema.Record({ key: LanguageCode, value: Translations })),
  i18n: Schema.optional(Schema.Record({ key: LanguageCode, value: Translations })),
  iab: Schema.optional(IabOptions),
  vendors: Schema.optional(Schema.Array(Vendor)),
  vendorListVersion: Schema.optional(Schema.String),
  /** Google Consent Mode v2; absent: off. */
  consentMode: Schema.optional(ConsentModeOptions)
}).annotations({ identifier: "ManifestOptions" })
export type ManifestOptions = typeof ManifestOptions.Type

/**
 * `GET /manifest`: geo-independent policy configuration; never a visitor's data.
 *
 * @example
 * ```ts
 * import { Manifest } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A host keeps the manifest and revalidates it with its ETag: 304 while it is unchanged.
 * let cached: { readonly etag: string; readonly manifest: Manifest } | undefined
 * const currentManifest = async (): Promise<Manifest> => {
 *   const headers: Record<string, string> = cached === undefined ? {} : { "if-none-match": cached.etag }
 *   const response = await fetch("https://consent.example.com/manifest", { headers })
 *   if (response.status === 304 && cached !== undefined) return cached.manifest
 *   const manifest = Schema.decodeUnknownSync(Manifest)(await response.json())
 *   cached = { etag: response.headers.get("etag") ?? "", manifest }
 *   return manifest
 * }
 * ```
 */
export const Manifest = Schema.Struct({
  schemaVersion: Schema.Literal(1),
  revision: Schema.String,
  hosting: Hosting,
  appName: Schema.NullOr(Schema.String),
  branding: Branding,
  defaultLanguage: LanguageCode,
  languages: Schema.Array(LanguageCode),
  policyPacks: Schema.Array(PolicyPack),
  translations: Schema.Record({ key: LanguageCode, value: Translations }),
  iab: Schema.NullOr(IabOptions),
  vendors: Schema.Array(Vendor),
  vendorListVersion: Schema.NullOr(Schema.String),
  consentMode: Schema.optional(ConsentModeOptions)
}).annotations({ identifier: "Manifest" })
export type Manifest = typeof Manifest.Type

/**
 * The outcome of resolving a visitor's rule: `matched`, `no-match` (no rule covers the location and
 * none is the default), `unconfigured` (the manifest has no rules) or `failed` (see the reason).
 *
 * @example
 * ```ts
 * import type { ResolutionStatus } from "@svc/schema"
 *
 * // The operator's log line: a 200 from /init does not mean a rule matched.
 * const explain = (status: ResolutionStatus): string => {
 *   switch (status) {
 *     case "matched":
 *       return "a rule applies"
 *     case "no-match":
 *       return "no rule covers this location: add a default rule"
 *     case "unconfigured":
 *       return "the manifest has no policy rules"
 *     case "failed":
 *       return "the request could not be resolved"
 *   }
 * }
 * ```
 */
export const ResolutionStatus = Schema.Literal("matched", "no-match", "unconfigured", "failed").annotations({
  identifier: "ResolutionStatus"
})
export type ResolutionStatus = typeof ResolutionStatus.Type

/**
 * Why a resolution failed; reported, never thrown.
 *
 * @example
 * ```ts
 * import { type PolicyResolution, ResolutionFailure } from "@svc/schema"
 * import { Option, Schema } from "effect"
 *
 * // `unsupported-contract`: the client reads another policy contract;
 * // `insufficient-inputs`: the location is unknown and no fallback or default rule applies.
 * const failureOf = (resolution: PolicyResolution) =>
 *   resolution.status === "failed" ? Schema.decodeUnknownOption(ResolutionFailure)(resolution.reason) : Option.none()
 * ```
 */
export const ResolutionFailure = Schema.Literal("unsupported-contract", "insufficient-inputs").annotations({
  identifier: "ResolutionFailure"
})

/**
 * Where the visitor's location came from; the order is the resolution order.
 *
 * @example
 * ```ts
 * import type { LocationSource } from "@svc/schema"
 *
 * // Overrides are visitor-controlled (preview links set them): leave them out of location statistics.
 * const countsForStatistics = (source: LocationSource | undefined) => source === "header" || source === "ip-database"
 * ```
 */
export const LocationSource = Schema.Literal("override", "header", "ip-database", "none").annotations({
  identifier: "LocationSource",
  description: "Where the location the rule was resolved from came from: `override` (the `country`/`region` " +
    "query or `x-svc-*` header, visitor-controlled), `header` (a CDN or hosting platform's country header), " +
    "`ip-database` (the client IP looked up in the IP location database: built in, IP Geolocation by DB-IP " +
    "(https://db-ip.com, CC BY 4.0), or the operator's own), `none` (no location: fallback or default rule)."
})
export type LocationSource = typeof LocationSource.Type

/**
 * `/init`'s `policyResolution`: whether a rule matched, which one (id, fingerprint, model) and how.
 *
 * @example
 * ```ts
 * import type { PolicyResolution } from "@svc/schema"
 *
 * const describe = (resolution: PolicyResolution) =>
 *   resolution.status === "matched"
 *     ? `rule ${resolution.policyId} (${resolution.model}) by ${resolution.matchedBy}, ` +
 *       `location from ${resolution.locationSource ?? "an older backend"}`
 *     : `${resolution.status}${resolution.reason === null ? "" : ` (${resolution.reason})`}`
 * ```
 */
export const PolicyResolution = Schema.Struct({
  status: ResolutionStatus,
  reason: Schema.NullOr(Schema.String),
  matchedBy: Schema.NullOr(MatchedBy),
  policyId: Schema.NullOr(Schema.String),
  fingerprint: Schema.NullOr(Schema.String),
  model: Schema.NullOr(PolicyModel),
  /** Absent from backends that predate it. */
  locationSource: Schema.optional(LocationSource)
}).annotations({ identifier: "PolicyResolution" })
export type PolicyResolution = typeof PolicyResolution.Type

/**
 * The visitor's location as `/init` read it: the country code and the region within it, each
 * `null` when unknown.
 *
 * @example
 * ```ts
 * import { Location } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * const location = Schema.decodeUnknownSync(Location)({ country: "US", region: "CA" })
 * const label = location.region === null
 *   ? location.country ?? "unknown"
 *   : `${location.country}-${location.region}` // "US-CA"
 * ```
 */
export const Location = Schema.Struct({
  country: Schema.NullOr(Schema.String),
  region: Schema.NullOr(Schema.String)
}).annotations({ identifier: "Location" })

/**
 * A journey: one id (`jrn_…`) shared by a page view's `/init`, session reports and save, its
 * scope, and `stored` (`1` when the browser held a stored choice, else `0`).
 *
 * @example
 * ```ts
 * import type { Journey } from "@svc/schema"
 *
 * // A checkout names its own journey, so its /init, session report and save can be joined.
 * const checkoutJourney = (orderId: string, hasStoredChoice: boolean): Journey => ({
 *   id: `jrn_${orderId}`,
 *   scope: "checkout",
 *   stored: hasStoredChoice ? "1" : "0"
 * })
 * ```
 */
export const Journey = Schema.Struct({
  id: Schema.optional(Token(128)),
  scope: Schema.optional(Token(128)),
  stored: Schema.optional(Token(128))
}).annotations({ identifier: "Journey" })
export type Journey = typeof Journey.Type

/**
 * A banner experiment and the arm the visitor is in: sent to `/init` (`experiment=<id>=<arm>`) and
 * with the save, and counted per arm by `GET /experiments/:id/summary`.
 *
 * @example
 * ```ts
 * import type { ExperimentArm } from "@svc/schema"
 *
 * // The site splits visitors between two banner texts.
 * const armOf = (visitorBucket: number): ExperimentArm => ({
 *   id: "banner-copy",
 *   arm: visitorBucket % 2 === 0 ? "short" : "long"
 * })
 * const initQuery = (arm: ExperimentArm) => `experiment=${encodeURIComponent(arm.id)}=${encodeURIComponent(arm.arm)}`
 * ```
 */
export const ExperimentArm = Schema.Struct({
  id: Token(128),
  arm: Token(128)
}).annotations({ identifier: "ExperimentArm" })
export type ExperimentArm = typeof ExperimentArm.Type

/**
 * `GET /init`: the configuration resolved for one visitor. A 200 does not mean a rule matched.
 *
 * @example
 * ```ts
 * import { InitResponse } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // Server-side rendering: does the visitor's rule ask at all (published rules carry `prompt` with its default)?
 * const response = await fetch("https://consent.example.com/init?v=3.0.0&contract=1&country=DE", {
 *   headers: { "accept-language": "de-DE,de;q=0.9,en;q=0.5" }
 * })
 * const { language, policy, policyResolution } = Schema.decodeUnknownSync(InitResponse)(await response.json())
 * const asks = policyResolution.status === "matched" && policy !== null && policy.model !== "none" &&
 *   policy.prompt !== "none"
 * console.log(asks ? `ask in ${language}` : "no notice")
 * ```
 */
export const InitResponse = Schema.Struct({
  schemaVersion: Schema.Literal(1),
  revision: Schema.String,
  hosting: Hosting,
  policyResolution: PolicyResolution,
  policy: Schema.NullOr(PolicyPack),
  location: Location,
  language: LanguageCode,
  translations: Translations,
  gpc: Schema.Boolean,
  appName: Schema.NullOr(Schema.String),
  branding: Branding,
  iab: Schema.NullOr(IabOptions),
  vendors: Schema.Array(Vendor),
  vendorListVersion: Schema.NullOr(Schema.String),
  gvl: Schema.optional(Gvl),
  policySnapshotToken: Schema.optional(Schema.String),
  experiment: Schema.NullOr(ExperimentArm),
  journey: Schema.NullOr(Journey),
  /** Present when `manifest.consentMode` is configured. */
  consentMode: Schema.optional(ConsentModeInit)
}).annotations({ identifier: "InitResponse" })
export type InitResponse = typeof InitResponse.Type
