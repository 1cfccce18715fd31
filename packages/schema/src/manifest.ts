import { Schema } from "effect"
import { ConsentModeInit, ConsentModeOptions, MatchedBy, PolicyModel, PolicyPack, PolicyRule } from "./policy.js"
import { Token } from "./ids.js"
import { Gvl, Vendor } from "./vendors.js"

export const Hosting = Schema.Literal("self-hosted", "managed").annotations({ identifier: "Hosting" })
export type Hosting = typeof Hosting.Type

export const Branding = Schema.Literal("svc", "none").annotations({ identifier: "Branding" })
export type Branding = typeof Branding.Type

/** A translation set: nested string tables (`{ banner: { title: "..." } }`). */
export interface Translations {
  readonly [key: string]: string | Translations
}
export const Translations: Schema.Schema<Translations> = Schema.Record({
  key: Schema.String,
  value: Schema.Union(Schema.String, Schema.suspend(() => Translations))
}).annotations({ identifier: "Translations" })

/** Language code: `en`, `de`, `pt-BR`. */
export const LanguageCode = Schema.String.pipe(Schema.pattern(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/)).annotations({
  identifier: "LanguageCode"
})

export const IabOptions = Schema.Struct({
  enabled: Schema.Boolean,
  cmpId: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  customVendors: Schema.optional(Schema.Array(Vendor)),
  /** GVL source for the server-side loader when the `gvl` option names none. */
  endpoint: Schema.optional(Schema.String)
}).annotations({ identifier: "IabOptions" })

/** The authored `manifest` option. Unknown keys are refused when the instance is built. */
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

/** `GET /manifest`: geo-independent policy configuration; never a visitor's data. */
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

export const ResolutionStatus = Schema.Literal("matched", "no-match", "unconfigured", "failed").annotations({
  identifier: "ResolutionStatus"
})
export type ResolutionStatus = typeof ResolutionStatus.Type

/** Why a resolution failed; reported, never thrown. */
export const ResolutionFailure = Schema.Literal("unsupported-contract", "insufficient-inputs").annotations({
  identifier: "ResolutionFailure"
})

/** Where the visitor's location came from; the order is the resolution order. */
export const LocationSource = Schema.Literal("override", "header", "ip-database", "none").annotations({
  identifier: "LocationSource",
  description: "Where the location the rule was resolved from came from: `override` (the `country`/`region` " +
    "query or `x-svc-*` header, visitor-controlled), `header` (a CDN or hosting platform's country header), " +
    "`ip-database` (the client IP looked up in the IP location database: built in, IP Geolocation by DB-IP " +
    "(https://db-ip.com, CC BY 4.0), or the operator's own), `none` (no location: fallback or default rule)."
})
export type LocationSource = typeof LocationSource.Type

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

export const Location = Schema.Struct({
  country: Schema.NullOr(Schema.String),
  region: Schema.NullOr(Schema.String)
}).annotations({ identifier: "Location" })

export const Journey = Schema.Struct({
  id: Schema.optional(Token(128)),
  scope: Schema.optional(Token(128)),
  stored: Schema.optional(Token(128))
}).annotations({ identifier: "Journey" })
export type Journey = typeof Journey.Type

export const ExperimentArm = Schema.Struct({
  id: Token(128),
  arm: Token(128)
}).annotations({ identifier: "ExperimentArm" })
export type ExperimentArm = typeof ExperimentArm.Type

/** `GET /init`: the configuration resolved for one visitor. A 200 does not mean a rule matched. */
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
