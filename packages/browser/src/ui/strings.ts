// English texts shipped in the bundle; /init `translations` and page config override them by key.
import type { SvcConfig } from "../runtime/config.js"
import { isRecord } from "../runtime/guards.js"
import type { InitResponse, Translations } from "../runtime/types.js"

export const ENGLISH: Record<string, string> = {
  "banner.title": "We value your privacy",
  "banner.description":
    "We use cookies and similar technologies to run this site and, with your permission, to measure its use, remember your settings and personalise content and ads.",
  "banner.acceptAll": "Accept all",
  "banner.rejectAll": "Reject all",
  "banner.customize": "Customize",
  "optOut.title": "Your privacy choices",
  "optOut.description":
    "We and our partners may sell or share personal information for targeted advertising. You can opt out at any time.",
  "optOut.doNotSell": "Do not sell or share my personal information",
  "optOut.dismiss": "OK",
  "optOut.preferences": "Preferences",
  "dialog.title": "Privacy preferences",
  "dialog.description":
    "Choose which kinds of cookies and similar technologies this site may use. You can change this at any time.",
  "dialog.save": "Save choices",
  "dialog.acceptAll": "Accept all",
  "dialog.rejectAll": "Reject all",
  "dialog.close": "Close",
  "dialog.alwaysOn": "Always on",
  "dialog.gpc": "Off: your browser sends a Global Privacy Control signal.",
  "dialog.vendors": "Used by: {vendors}",
  "widget.label": "Privacy settings",
  "categories.necessary.title": "Strictly necessary",
  "categories.necessary.description": "Needed for the site to work, such as security and remembering this choice.",
  "categories.measurement.title": "Measurement",
  "categories.measurement.description": "Statistics on how the site is used, to improve it.",
  "categories.marketing.title": "Marketing",
  "categories.marketing.description": "Advertising, including personalised ads and measuring their performance.",
  "categories.functionality.title": "Functionality",
  "categories.functionality.description": "Extra features such as chat, videos and remembered settings.",
  "categories.experience.title": "Experience",
  "categories.experience.description": "Personalised content and recommendations.",
  "iab.description":
    "We and our {count} partners store and access information on a device, such as cookies, and process personal data such as unique identifiers and browsing data, for the purposes below. You can accept, reject, or choose; your choices apply to this site only.",
  "iab.purposes": "Purposes: {purposes}",
  "iab.vendors": "Partners ({count})",
  "iab.vendorPolicy": "Privacy policy",
  "iab.legitimateInterest": "Also relies on legitimate interest"
}

export type Translate = (key: string, vars?: Record<string, string | number>) => string

const lookup = (table: unknown, key: string): string | undefined => {
  if (!isRecord(table)) return undefined
  const flat = table[key]
  if (typeof flat === "string") return flat
  let node: unknown = table
  for (const part of key.split(".")) {
    if (!isRecord(node)) return undefined
    node = node[part]
  }
  return typeof node === "string" ? node : undefined
}

/** Page config first, then the backend's translations for the visitor's language, then English. */
export const translator = (config: SvcConfig, translations: Translations | undefined): Translate => (key, vars) => {
  const text = lookup(config.translations, key) ?? lookup(translations, key) ?? ENGLISH[key] ?? key
  return vars === undefined
    ? text
    : text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m))
}

export const translatorFor = (config: SvcConfig, init: InitResponse | null): Translate =>
  translator(config, init?.translations)
