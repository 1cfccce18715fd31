// What a resolved policy means for this visitor: defaults, GPC denials, whether to ask.
import {
  type Category,
  type ConsentState,
  type InitResponse,
  type Model,
  type PolicyPack,
  type Preferences,
  type StoredConsent
} from "./types.js"

export const DAY_MS = 86_400_000

export const preferencesOf = (value: (category: Category) => boolean): Preferences => ({
  necessary: true,
  measurement: value("measurement"),
  marketing: value("marketing"),
  functionality: value("functionality"),
  experience: value("experience")
})

/** The parts of a rule its defaults and GPC denials follow from (a consent-mode rule has them too). */
export type RuleDefaults = Pick<PolicyPack, "model" | "categories" | "gpcDenies">

/** Categories a GPC signal denies: the rule's list, else `marketing` under opt-out and iab. */
export const gpcDenied = (policy: RuleDefaults | null): ReadonlyArray<Category> =>
  policy === null
    ? []
    : policy.gpcDenies ?? (policy.model === "opt-out" || policy.model === "iab" ? ["marketing"] : [])

/** The categories a "Do not sell or share" act turns off. */
export const optOutCategories = (policy: PolicyPack | null): ReadonlyArray<Category> => {
  const denied = gpcDenied(policy)
  return denied.length > 0 ? denied : ["marketing"]
}

/**
 * Preferences before any act: opt-in and iab deny every optional category; opt-out and none
 * grant them. A category the rule does not offer is denied unless the model is `none`.
 */
export const defaultPreferences = (policy: RuleDefaults | null): Preferences => {
  if (policy === null) return preferencesOf(() => false)
  const granted = policy.model === "opt-out" || policy.model === "none"
  return preferencesOf((c) => policy.model === "none" || (granted && policy.categories.includes(c)))
}

/** GPC wins over every other source for the categories it denies. */
export const applyGpc = (prefs: Preferences, policy: RuleDefaults | null, gpc: boolean): Preferences => {
  if (!gpc) return prefs
  const denied = gpcDenied(policy)
  return preferencesOf((c) => prefs[c] && !denied.includes(c))
}

export const isMatched = (init: InitResponse | null): init is InitResponse & { policy: PolicyPack } =>
  init !== null && init.policyResolution.status === "matched" && init.policy !== null

/** A stored choice counts for the current policy when its fingerprint matches and it has not expired. */
export const storedIsValid = (stored: StoredConsent | undefined, policy: PolicyPack | null, now: number): boolean =>
  stored !== undefined &&
  policy !== null &&
  stored.fingerprint === policy.fingerprint &&
  typeof stored.expiresAt === "number" &&
  stored.expiresAt > now

export const validityMs = (policy: PolicyPack | null): number => (policy?.validityDays ?? 365) * DAY_MS

/** Consent state derived from the /init answer, the stored choice and the GPC signal. */
export const deriveState = (
  init: InitResponse | null,
  stored: StoredConsent | undefined,
  gpc: boolean,
  now: number
): ConsentState => {
  const policy = isMatched(init) ? init.policy : null
  const model: Model | null = policy?.model ?? null
  const base = {
    gpc,
    model,
    policyId: policy?.id ?? null,
    fingerprint: policy?.fingerprint ?? null
  }
  if (init === null || init.policyResolution.status === "failed") {
    // Hydration: before /init answers (or when it cannot be reached), a stored choice applies as saved.
    if (stored !== undefined && stored.expiresAt > now) {
      return {
        ...base,
        status: "given",
        preferences: stored.preferences,
        givenAt: stored.givenAt,
        action: stored.action,
        vendors: stored.vendors ?? {},
        ...(stored.tcString !== undefined ? { tcString: stored.tcString } : {})
      }
    }
    return {
      ...base,
      status: init === null ? "loading" : "unresolved",
      preferences: defaultPreferences(null),
      givenAt: null,
      action: null,
      vendors: {}
    }
  }
  if (policy === null) {
    return {
      ...base,
      status: "unresolved",
      preferences: defaultPreferences(null),
      givenAt: null,
      action: null,
      vendors: {}
    }
  }
  if (policy.model === "none") {
    return {
      ...base,
      status: "not-required",
      preferences: defaultPreferences(policy),
      givenAt: null,
      action: null,
      vendors: {}
    }
  }
  if (storedIsValid(stored, policy, now)) {
    const s = stored!
    return {
      ...base,
      status: "given",
      preferences: applyGpc(s.preferences, policy, gpc),
      givenAt: s.givenAt,
      action: s.action,
      vendors: s.vendors ?? {},
      ...(s.tcString !== undefined ? { tcString: s.tcString } : {})
    }
  }
  return {
    ...base,
    status: "pending",
    preferences: applyGpc(defaultPreferences(policy), policy, gpc),
    givenAt: null,
    action: null,
    vendors: {}
  }
}

/**
 * Whether the UI asks: a matched rule, a model other than `none`, a prompt other than `none`, and
 * no valid stored choice. Under opt-out a GPC signal already opted the visitor out of what the
 * notice offers, so the notice stays closed.
 */
export const shouldPrompt = (init: InitResponse | null, state: ConsentState): boolean => {
  if (!isMatched(init)) return false
  const policy = init.policy
  if (policy.model === "none" || policy.prompt === "none") return false
  if (state.status !== "pending") return false
  if (policy.model === "opt-out" && state.gpc) return false
  return true
}
