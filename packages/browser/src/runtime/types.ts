// Wire shapes the browser reads and writes. They mirror @svc/schema (manifest.ts, consent.ts,
// vendors.ts) without importing it, so the bundles stay free of dependencies.

export type Category = "measurement" | "marketing" | "functionality" | "experience"
export const CATEGORIES: ReadonlyArray<Category> = ["measurement", "marketing", "functionality", "experience"]

export type Model = "opt-in" | "opt-out" | "iab" | "none"
export type Action = "accept_all" | "reject_all" | "custom" | "opt_out"
export type Surface = "banner" | "dialog" | "widget" | "api"

export type Preferences = { necessary: true } & Record<Category, boolean>

export interface PolicyPack {
  id: string
  model: Model
  categories: ReadonlyArray<Category>
  prompt?: "banner" | "dialog" | "none"
  preselected?: ReadonlyArray<Category>
  validityDays?: number
  gpcDenies?: ReadonlyArray<Category>
  fingerprint: string
}

export interface Vendor {
  id: string
  name: string
  category: Category | "necessary"
  purposes?: ReadonlyArray<string>
  privacyPolicyUrl?: string
}

export interface GvlVendor {
  id: number
  name: string
  purposes?: ReadonlyArray<number>
  legIntPurposes?: ReadonlyArray<number>
  flexiblePurposes?: ReadonlyArray<number>
  specialFeatures?: ReadonlyArray<number>
  deletedDate?: string
  urls?: ReadonlyArray<{ langId?: string; privacy?: string }>
  policyUrl?: string
}

export interface Gvl {
  vendorListVersion: number
  tcfPolicyVersion?: number
  purposes: Record<string, { id?: number; name?: string; description?: string } | unknown>
  vendors: Record<string, GvlVendor>
}

export interface Translations {
  readonly [key: string]: string | Translations
}

export interface InitResponse {
  hosting?: "self-hosted" | "managed"
  revision?: string
  policyResolution: {
    status: "matched" | "no-match" | "unconfigured" | "failed"
    reason?: string | null
    policyId?: string | null
    fingerprint?: string | null
    model?: Model | null
  }
  policy: PolicyPack | null
  location?: { country: string | null; region: string | null }
  language?: string
  translations?: Translations
  gpc?: boolean
  iab?: { enabled: boolean; cmpId?: number } | null
  vendors?: ReadonlyArray<Vendor>
  gvl?: Gvl
  policySnapshotToken?: string
  experiment?: { id: string; arm: string } | null
  journey?: { id?: string; scope?: string; stored?: string } | null
  /** Google Consent Mode v2: the matched rule's mapping (Google type → category). */
  consentMode?: { mapping: Record<string, Category | "necessary">; waitForUpdate: number; region: ReadonlyArray<string> | null }
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
