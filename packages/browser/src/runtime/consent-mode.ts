// Google Consent Mode v2: `gtag('consent', 'default' | 'update', …)` pushed to window.dataLayer.
import { applyGpc, defaultPreferences } from "./policy.js"
import type { ConsentModeMapping, ConsentModeRule } from "./consent-mode-config.js"
import type { Extension } from "./runtime.js"
import type { Preferences } from "./types.js"

type ConsentValue = "granted" | "denied"

/** Each Google type granted or denied for these preferences. */
export const consentTypes = (mapping: ConsentModeMapping, preferences: Preferences): Record<string, ConsentValue> => {
  const out: Record<string, ConsentValue> = {}
  for (const type of Object.keys(mapping)) out[type] = preferences[mapping[type]!] ? "granted" : "denied"
  return out
}

/** Preferences of a rule before any act, with the GPC signal applied. */
const defaultsOf = (rule: ConsentModeRule | null, gpc: boolean): Preferences => {
  return applyGpc(defaultPreferences(rule), rule, gpc)
}

/**
 * Pushes the default commands synchronously while the bundle starts (so before any tag the page
 * loads after it), one per regional rule with `region` and one for everywhere else, each with
 * `wait_for_update`; then an update on hydration of a stored choice, when `/init` resolves
 * (its GPC and the matched rule's mapping) and on every save or reset.
 */
export const consentMode = (): Extension => ({
  setup(ctx) {
    // The server embeds this object from the validated manifest (scripts/bundles); the page cannot add it.
    const cm = ctx.config.consentMode
    if (typeof cm !== "object" || cm === null) return
    const w = window
    const dataLayer = (w.dataLayer = w.dataLayer || [])
    // gtag() pushes its `arguments` object: tags read exactly that shape.
    const gtag = function(..._args: Array<unknown>) {
      // eslint-disable-next-line prefer-rest-params
      dataLayer.push(arguments)
    }
    const gpc = ctx.state().gpc
    const wait = cm.waitForUpdate
    for (const rule of cm.regional) {
      gtag("consent", "default", {
        ...consentTypes(rule.mapping, defaultsOf(rule, gpc)),
        region: rule.region,
        wait_for_update: wait
      })
    }
    const everywhere = cm.everywhere
    gtag("consent", "default", {
      ...consentTypes(everywhere?.mapping ?? cm.mapping, defaultsOf(everywhere, gpc)),
      wait_for_update: wait
    })
    ctx.api.subscribe((state, event) => {
      if (event === "subscribe" || event === "dismiss") return
      gtag("consent", "update", consentTypes(ctx.init()?.consentMode?.mapping ?? cm.mapping, state.preferences))
    })
  }
})
