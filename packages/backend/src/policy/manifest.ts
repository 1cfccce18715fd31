import type { Manifest, PolicyModel, PolicyPack, PolicyRule, Translations } from "@svc/schema"
import { Effect } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { digest } from "./canonical.js"
import { DEFAULT_LANGUAGE, languageChain, mergeTranslations, shippedTranslations } from "./translations.js"

/** Categories GPC denies when a rule does not say: marketing where the visitor is opted in by default. */
export const defaultGpcDenies = (model: PolicyModel): PolicyRule["gpcDenies"] =>
  model === "opt-out" || model === "iab" ? ["marketing"] : []

const sorted = <A extends string>(values: ReadonlyArray<A>): ReadonlyArray<A> => [...values].sort()

/**
 * A rule with every default written out, in the published key order. What a rule does is then
 * visible to clients without knowing svc's defaults, and equal behaviour hashes equally.
 */
export const withDefaults = (rule: PolicyRule): PolicyRule => ({
  id: rule.id,
  match: rule.match,
  model: rule.model,
  categories: rule.categories,
  prompt: rule.prompt ?? (rule.model === "none" ? "none" : "banner"),
  preselected: rule.preselected ?? [],
  validityDays: rule.validityDays ?? 365,
  gpcDenies: rule.gpcDenies ?? defaultGpcDenies(rule.model),
  proof: { storeIp: rule.proof?.storeIp ?? true, storeUserAgent: rule.proof?.storeUserAgent ?? true },
  ...(rule.translationProfile === undefined ? {} : { translationProfile: rule.translationProfile }),
  ...(rule.consentMode === undefined ? {} : { consentMode: rule.consentMode })
})

/**
 * Fingerprint of what a rule asks of the visitor and records: model, categories (as a set),
 * prompt, preselection, validity, GPC denials and proof. Not its id, match or texts: moving a
 * rule to other countries or rewording its banner does not invalidate consents given under it.
 *
 * @example
 * ```ts
 * import { ruleFingerprint } from "@svc/backend"
 * import type { PolicyRule } from "@svc/schema"
 *
 * const eu: PolicyRule = { id: "eu", match: { countries: ["DE", "FR"] }, model: "opt-in", categories: ["marketing"] }
 * // Adding Austria keeps the consents given under the rule current...
 * ruleFingerprint(eu) === ruleFingerprint({ ...eu, match: { countries: ["DE", "FR", "AT"] } }) // true
 * // ...asking for one more category does not.
 * ruleFingerprint(eu) === ruleFingerprint({ ...eu, categories: ["marketing", "measurement"] }) // false
 * ```
 */
export const ruleFingerprint = (rule: PolicyRule): string => {
  const r = withDefaults(rule)
  return digest({
    v: 1,
    model: r.model,
    categories: sorted(r.categories),
    prompt: r.prompt,
    preselected: sorted(r.preselected ?? []),
    validityDays: r.validityDays,
    gpcDenies: sorted(r.gpcDenies ?? []),
    proof: r.proof
  })
}

/** Every language the manifest publishes, most specific key spelling as configured. */
const languagesOf = (
  options: { readonly i18n?: object | undefined; readonly customTranslations?: object | undefined }
) => {
  const all = new Set<string>(Object.keys(shippedTranslations))
  for (const key of Object.keys(options.i18n ?? {})) all.add(key)
  for (const key of Object.keys(options.customTranslations ?? {})) all.add(key)
  return [DEFAULT_LANGUAGE, ...[...all].filter((l) => l !== DEFAULT_LANGUAGE).sort()]
}

/**
 * The complete table of one language: shipped texts, then `i18n`, then `customTranslations`, for
 * English first and then each step of the language's chain (`pt`, `pt-BR`), so a key missing in a
 * language falls back to the more general language and finally to English.
 */
const tableFor = (
  language: string,
  options: {
    readonly i18n?: Record<string, Translations> | undefined
    readonly customTranslations?: Record<string, Translations> | undefined
  }
): Translations => {
  const steps = language === DEFAULT_LANGUAGE ? [DEFAULT_LANGUAGE] : [DEFAULT_LANGUAGE, ...languageChain(language)]
  let table: Translations = {}
  for (const step of steps) {
    table = mergeTranslations(table, shippedTranslations[step])
    table = mergeTranslations(table, options.i18n?.[step])
    table = mergeTranslations(table, options.customTranslations?.[step])
  }
  return table
}

/** Translation key that holds named override sets (`translationProfile` of a rule). */
export const PROFILES_KEY = "profiles"

/** A table as `/init` sends it: the rule's profile laid over the base, the profile sets removed. */
export const translationsForRule = (table: Translations, profile: string | undefined): Translations => {
  const { [PROFILES_KEY]: profiles, ...base } = table
  if (profile === undefined || typeof profiles !== "object") return base
  const overlay = profiles[profile]
  return typeof overlay === "object" ? mergeTranslations(base, overlay) : base
}

/**
 * The instance's policy manifest, computed once when the instance is built: rules with their
 * fingerprints, the revision (hash of the canonical manifest) and the complete translation table of
 * every published language. Nothing here changes while the instance runs. What `GET /manifest`
 * sends of it, encoded, is `ManifestResponses`.
 *
 * @example
 * ```ts
 * import { PolicyManifest } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // Release notes: a rule's fingerprint changes only when what it asks of visitors changes.
 * const fingerprints = Effect.map(PolicyManifest, (manifest) =>
 *   [`manifest ${manifest.revision}`, ...manifest.rules.map((rule) => `${rule.id}: ${rule.fingerprint}`)].join("\n"))
 * ```
 */
export class PolicyManifest extends Effect.Service<PolicyManifest>()("@svc/backend/PolicyManifest", {
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const options = config.manifest
    const rules: ReadonlyArray<PolicyPack> = options.policyRules.map((rule) => ({
      ...withDefaults(rule),
      fingerprint: ruleFingerprint(rule)
    }))
    const byId = new Map(rules.map((pack) => [pack.id, pack]))
    const languages = languagesOf(options)
    const translations: Record<string, Translations> = {}
    for (const language of languages) translations[language] = tableFor(language, options)

    const body: Omit<Manifest, "revision"> = {
      schemaVersion: 1,
      hosting: config.hosting,
      appName: options.appName ?? null,
      branding: options.branding ?? "svc",
      defaultLanguage: DEFAULT_LANGUAGE,
      languages,
      policyPacks: rules,
      translations,
      iab: options.iab ?? null,
      vendors: options.vendors ?? [],
      vendorListVersion: options.vendorListVersion ?? null,
      ...(options.consentMode === undefined ? {} : { consentMode: options.consentMode })
    }
    const revision = digest(body)
    const { schemaVersion, ...rest } = body
    const manifest: Manifest = { schemaVersion, revision, ...rest }

    return {
      /** Hash of the canonical manifest; changes whenever anything published changes. */
      revision,
      /** The rules in authored order, each with its defaults applied and its fingerprint. */
      rules,
      rule: (policyId: string): PolicyPack | undefined => byId.get(policyId),
      /** The whole published manifest (`GET /manifest` without `?language=`). */
      manifest,
      defaultLanguage: DEFAULT_LANGUAGE,
      languages,
      /** Complete table of a published language (English fallback filled in). */
      translations: (language: string): Translations => translations[language] ?? translations[DEFAULT_LANGUAGE]!
    } as const
  })
}) {}
