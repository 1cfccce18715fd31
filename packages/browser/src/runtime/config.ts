// Configuration: the defaults the server embeds in the bundle, overridden by the page.
import type { ConsentModeConfig } from "./consent-mode-config.js"

export interface SvcConfig {
  /** Backend base URL without trailing slash; normally embedded by the server. */
  backendURL?: string
  /** Location overrides passed to /init (visitor-controlled; useful for tests and previews). */
  country?: string
  region?: string
  /** Force the GPC input of /init; by default `navigator.globalPrivacyControl` decides. */
  gpc?: boolean
  /** Experiment arm as `"<id>=<arm>"` or `{ id, arm }`. */
  experiment?: string | { id: string; arm: string }
  /** Journey id; generated per page view when absent, none sent when `false`. */
  journey?: string | false
  journeyScope?: string
  /** Domain recorded with each save; default `location.hostname`. */
  domain?: string
  /** Full bundle: `false` keeps the UI from opening by itself (the API still works). */
  ui?: boolean
  /** Show a small "Privacy settings" button once a choice is made. */
  widget?: boolean
  /** Translation overrides, by key (`"banner.title"`) or nested (`{ banner: { title } }`). */
  translations?: Record<string, unknown>
  /** CSS variable overrides without the `--svc-` prefix: `{ accent: "#0a7" }`. */
  theme?: Record<string, string>
  /** Vendors the page ships, merged with the vendors /init returns. */
  vendors?: ReadonlyArray<{ id: string; name: string; category: string }>
  /**
   * IAB bundle: publisher country code and CMP details for the TC string; `mspaCovered` when the
   * publisher signed the IAB MSPA (the usnat section's MspaCoveredTransaction).
   */
  iab?: { publisherCC?: string; cmpVersion?: number; consentScreen?: number; mspaCovered?: boolean }
  /** Google Consent Mode v2, embedded by the server when the manifest configures it; `false` turns it off. */
  consentMode?: false | ConsentModeConfig
}

export interface Embedded {
  backendURL?: string
  config?: SvcConfig
}

const trimSlash = (url: string): string => url.replace(/\/+$/, "")

/** Base URL from the script's own address: everything before the file name. */
export const backendFromScript = (src: string | undefined | null): string | undefined => {
  if (!src) return undefined
  try {
    const url = new URL(src)
    url.search = ""
    url.hash = ""
    return trimSlash(url.href.slice(0, url.href.lastIndexOf("/") + 1))
  } catch {
    return undefined
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Later sources win; nested plain objects (translations, theme, iab) merge key by key. */
export const mergeConfig = (...sources: ReadonlyArray<unknown>): SvcConfig => {
  const out: Record<string, unknown> = {}
  for (const source of sources) {
    if (!isObject(source)) continue
    for (const key of Object.keys(source)) {
      const value = source[key]
      if (value === undefined) continue
      const prev = out[key]
      out[key] = isObject(value) && isObject(prev) ? mergeConfig(prev, value) : value
    }
  }
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the page's own settings: typed for page authors by SvcConfig, not checked field by field at run time (the bundle's size budget)
  return out as SvcConfig
}

export const resolveBackendURL = (
  config: SvcConfig,
  embedded: Embedded | undefined,
  scriptSrc: string | undefined | null
): string => {
  const url = config.backendURL ?? embedded?.backendURL ?? backendFromScript(scriptSrc) ?? ""
  return trimSlash(url)
}
