import type { ManifestOptions } from "@svc/schema"

/**
 * Rules the manifest schema cannot express on its own. Returns every problem, each prefixed with
 * the path of the offending value, so one build error can list them all.
 */
export const manifestProblems = (manifest: ManifestOptions): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const seen = new Map<string, number>()
  let defaults = 0
  let fallbacks = 0
  manifest.policyRules.forEach((rule, index) => {
    const at = `manifest.policyRules[${index}]`
    const first = seen.get(rule.id)
    if (first !== undefined) {
      problems.push(`${at}.id: duplicate id "${rule.id}" (also policyRules[${first}])`)
    } else {
      seen.set(rule.id, index)
    }
    if (rule.match.default === true) defaults++
    if (rule.match.fallback === true) fallbacks++
    const { countries = [], regions = [] } = rule.match
    if (rule.match.default !== true && rule.match.fallback !== true && countries.length === 0 && regions.length === 0) {
      problems.push(`${at}.match: matches nothing (give countries, regions, fallback or default)`)
    }
    const offered = new Set(rule.categories)
    if (offered.size !== rule.categories.length) problems.push(`${at}.categories: lists a category twice`)
    for (const key of ["preselected", "gpcDenies"] as const) {
      for (const category of rule[key] ?? []) {
        if (!offered.has(category)) {
          problems.push(`${at}.${key}: "${category}" is not one of the rule's categories`)
        }
      }
    }
    if (rule.model === "iab" && manifest.iab?.enabled !== true) {
      problems.push(`${at}.model: "iab" needs manifest.iab.enabled: true`)
    }
  })
  const profiles = new Set<string>()
  for (const block of ["i18n", "customTranslations"] as const) {
    for (const [language, table] of Object.entries(manifest[block] ?? {})) {
      const sets = table.profiles
      if (sets === undefined) continue
      if (typeof sets !== "object") {
        problems.push(`manifest.${block}.${language}.profiles: must be a table of named translation sets`)
        continue
      }
      for (const [name, set] of Object.entries(sets)) {
        if (typeof set !== "object")
          problems.push(`manifest.${block}.${language}.profiles.${name}: must be a translation set`)
        else profiles.add(name)
      }
    }
  }
  manifest.policyRules.forEach((rule, index) => {
    if (rule.translationProfile !== undefined && !profiles.has(rule.translationProfile)) {
      problems.push(
        `manifest.policyRules[${index}].translationProfile: no translation set "${rule.translationProfile}" under customTranslations.<language>.profiles`
      )
    }
  })
  const customVendorIds = new Set<string>()
  for (const vendor of manifest.iab?.customVendors ?? []) {
    if (customVendorIds.has(vendor.id)) problems.push(`manifest.iab.customVendors: duplicate vendor id "${vendor.id}"`)
    customVendorIds.add(vendor.id)
  }
  if (defaults > 1) problems.push(`manifest.policyRules: ${defaults} rules have match.default (at most one)`)
  if (fallbacks > 1) problems.push(`manifest.policyRules: ${fallbacks} rules have match.fallback (at most one)`)
  const vendorIds = new Set<string>()
  for (const vendor of manifest.vendors ?? []) {
    if (vendorIds.has(vendor.id)) problems.push(`manifest.vendors: duplicate vendor id "${vendor.id}"`)
    vendorIds.add(vendor.id)
  }
  return problems
}
