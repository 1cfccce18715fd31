import {
  type ConsentModeInit,
  DEFAULT_CONSENT_MODE_MAPPING,
  GoogleConsentTypes,
  type ManifestOptions,
  type MatchedBy,
  type PolicyRule,
  type ResolvedConsentModeMapping
} from "@svc/schema"
import { withDefaults } from "./manifest.js"

const DEFAULT_WAIT_FOR_UPDATE_MS = 500

/** The default mapping, then the manifest's overrides, then the rule's. */
export const consentModeMapping = (options: ManifestOptions, rule: PolicyRule | null): ResolvedConsentModeMapping => {
  const mapping = { ...DEFAULT_CONSENT_MODE_MAPPING }
  for (const overrides of [options.consentMode?.mapping, rule?.consentMode]) {
    for (const type of GoogleConsentTypes) {
      const category = overrides?.[type]
      if (category !== undefined) mapping[type] = category
    }
  }
  return mapping
}

/** A rule is regional when it names countries or regions; those are Google's `region` values. */
const regionOf = (rule: PolicyRule): ReadonlyArray<string> | null => {
  const codes = [...(rule.match.regions ?? []), ...(rule.match.countries ?? [])]
  return codes.length === 0 ? null : codes
}

/** `/init`'s `consentMode` for the matched rule (or none), or `undefined` when Consent Mode is off. */
export const consentModeForInit = (
  options: ManifestOptions,
  rule: PolicyRule | null,
  matchedBy: MatchedBy | null
): ConsentModeInit | undefined => {
  if (options.consentMode === undefined) return undefined
  return {
    mapping: consentModeMapping(options, rule),
    waitForUpdate: options.consentMode.waitForUpdate ?? DEFAULT_WAIT_FOR_UPDATE_MS,
    region: rule !== null && (matchedBy === "region" || matchedBy === "country") ? regionOf(rule) : null
  }
}

/** What a bundle needs to push the default commands before any tag runs, i.e. before `/init` answers. */
interface ScriptRule {
  readonly region: ReadonlyArray<string> | null
  readonly model: PolicyRule["model"]
  readonly categories: PolicyRule["categories"]
  readonly gpcDenies: ReadonlyArray<string>
  readonly mapping: ResolvedConsentModeMapping
}

const scriptRule = (options: ManifestOptions, rule: PolicyRule): ScriptRule => {
  const r = withDefaults(rule)
  return {
    region: regionOf(rule),
    model: r.model,
    categories: r.categories,
    gpcDenies: r.gpcDenies ?? [],
    mapping: consentModeMapping(options, rule)
  }
}

/**
 * The `consentMode` block embedded in the bundles' config: one regional default per rule that
 * names countries or regions, the `default: true` rule's for everyone else, the manifest mapping
 * for a stored choice hydrated before `/init` answers. `{}` when Consent Mode is off.
 */
export const consentModeScriptConfig = (options: ManifestOptions): Record<string, unknown> => {
  if (options.consentMode === undefined) return {}
  const fallback = options.policyRules.find((rule) => rule.match.default === true)
  return {
    consentMode: {
      waitForUpdate: options.consentMode.waitForUpdate ?? DEFAULT_WAIT_FOR_UPDATE_MS,
      mapping: consentModeMapping(options, null),
      regional: options.policyRules.filter((rule) => regionOf(rule) !== null).map((rule) => scriptRule(options, rule)),
      everywhere: fallback === undefined ? null : scriptRule(options, fallback)
    }
  }
}
