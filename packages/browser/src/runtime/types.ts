// Wire shapes the browser reads and writes, derived from @svc/schema (the contract the backend
// encodes and decodes with). Type-only imports: nothing of it (or of effect) reaches the bundles.
import type {
  ConsentAction,
  ConsentSurface,
  Gvl as GvlSchema,
  GvlVendor as GvlVendorSchema,
  InitResponse as InitResponseSchema,
  OptionalCategory,
  PolicyModel,
  PolicyPack as PolicyPackSchema,
  PolicyResolution as PolicyResolutionSchema,
  Translations as WireTranslations,
  Vendor as VendorSchema
} from "@svc/schema"

export type Category = OptionalCategory
/** Every optional category, in display order (`wire-contract.test.ts` checks it against the contract). */
export const CATEGORIES: ReadonlyArray<Category> = ["measurement", "marketing", "functionality", "experience"]

export type Model = PolicyModel
/** What a visitor can do; `unknown` is the backend's word for a save that named none. */
export type Action = Exclude<ConsentAction, "unknown">
/** Every action, for checking a stored one (`wire-contract.test.ts` checks it against the contract). */
export const ACTIONS: ReadonlyArray<Action> = ["accept_all", "reject_all", "custom", "opt_out"]
export type Surface = ConsentSurface

export type Preferences = { necessary: true } & Record<Category, boolean>

/** A rule as `/init` and `/manifest` publish it. */
export type PolicyPack = typeof PolicyPackSchema.Encoded

export type Vendor = typeof VendorSchema.Encoded

/**
 * One GVL entry: the contract checks `id` and `name` and passes the rest of the published entry
 * through; these are the IAB fields of that rest the TCF encoder and the dialog read.
 */
export type GvlVendor = typeof GvlVendorSchema.Encoded & {
  readonly purposes?: ReadonlyArray<number>
  readonly legIntPurposes?: ReadonlyArray<number>
  readonly flexiblePurposes?: ReadonlyArray<number>
  readonly specialFeatures?: ReadonlyArray<number>
  readonly deletedDate?: string
  readonly urls?: ReadonlyArray<{ readonly langId?: string; readonly privacy?: string }>
  readonly policyUrl?: string
}

// An intersection, not `Omit`: the list's index signature would swallow its named fields.
export type Gvl = typeof GvlSchema.Encoded & { readonly vendors: Readonly<Record<string, GvlVendor>> }

export type Translations = WireTranslations

type WireInit = typeof InitResponseSchema.Encoded
type WireResolution = typeof PolicyResolutionSchema.Encoded

/**
 * `/init`'s answer as the browser reads it: the contract's JSON, of which only the resolution's
 * `status` and `policy` are relied on. Every other field may be absent (a backend older than the
 * field, e.g. `hosting`), so the runtime reads each with a default.
 */
export type InitResponse =
  & Partial<Omit<WireInit, "policyResolution" | "policy" | "gvl">>
  & {
    readonly policyResolution: Pick<WireResolution, "status"> & Partial<WireResolution>
    readonly policy: WireInit["policy"]
    readonly gvl?: Gvl | undefined
  }

/** The choice kept in localStorage: the last act for a policy fingerprint. */
export interface StoredConsent {
  v: 1
  policyId: string | null
  fingerprint: string | null
  preferences: Preferences
  givenAt: number
  action: Action
  expiresAt: number
  vendors?: Record<string, boolean>
  tcString?: string
  /** IAB bundle, opt-out rules in the US: the GPP string (usnat) of this choice, sent with the save. */
  gppString?: string
}

export type ConsentStatus =
  /** Before /init answered and with nothing stored. */
  | "loading"
  /** A rule matched and the visitor has not chosen yet (defaults apply). */
  | "pending"
  /** A valid choice is stored for the current policy. */
  | "given"
  /** The matched rule's model is `none`: nothing to ask. */
  | "not-required"
  /** /init failed or matched no rule: optional categories stay denied. */
  | "unresolved"

export interface ConsentState {
  status: ConsentStatus
  preferences: Preferences
  givenAt: number | null
  action: Action | null
  gpc: boolean
  model: Model | null
  policyId: string | null
  fingerprint: string | null
  vendors: Record<string, boolean>
  tcString?: string
}

/** Choices passed to `svc.save()`: categories left out keep their current value. */
export type Choices = Partial<Record<Category, boolean>> & { vendors?: Record<string, boolean> }

export interface SaveOptions {
  action?: Action
  surface?: Surface
}

export type SaveOutcome =
  | { ok: true; status: number; body: unknown }
  | { ok: false; queued: true }
  | { ok: false; queued: false; status: number; code?: string }
