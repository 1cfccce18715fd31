// The Google Consent Mode block the server embeds in the bundle's config (read by consent-mode.ts).
import type { Category, Model } from "./types.js"

/** Google type → svc category (`necessary`: always granted). */
export type ConsentModeMapping = Record<string, Category | "necessary">

/** A rule as the server embeds it for the default commands. */
export interface ConsentModeRule {
  region: ReadonlyArray<string> | null
  model: Model
  categories: ReadonlyArray<Category>
  gpcDenies: ReadonlyArray<Category>
  mapping: ConsentModeMapping
}

/** The server-embedded `consentMode` config block (the page may set `consentMode: false`). */
export interface ConsentModeConfig {
  waitForUpdate: number
  mapping: ConsentModeMapping
  regional: ReadonlyArray<ConsentModeRule>
  everywhere: ConsentModeRule | null
}
