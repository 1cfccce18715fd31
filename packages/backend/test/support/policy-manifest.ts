// The manifest the policy tests run with: every match level, an IAB rule and a translation profile.
import { fileURLToPath } from "node:url"

export const GVL_FIXTURE = fileURLToPath(new URL("../fixtures/gvl-v3.json", import.meta.url))

const all = ["measurement", "marketing", "functionality", "experience"] as const

export const policyRules = [
  {
    id: "us-ca",
    match: { regions: ["US-CA"] },
    model: "opt-out",
    categories: all,
    gpcDenies: ["marketing", "experience"]
  },
  { id: "fr-iab", match: { countries: ["FR"] }, model: "iab", categories: all },
  {
    id: "eu",
    match: { countries: ["DE", "AT", "US"] },
    model: "opt-in",
    categories: ["measurement", "marketing"],
    translationProfile: "strict"
  },
  { id: "eu-shadow", match: { countries: ["DE"], regions: ["DE-BY"] }, model: "opt-in", categories: ["marketing"] },
  { id: "unknown", match: { fallback: true }, model: "opt-in", categories: all, prompt: "dialog" },
  { id: "rest", match: { default: true }, model: "opt-out", categories: all }
] as const

export const manifest = {
  appName: "Policy tests",
  policyRules,
  iab: { enabled: true, cmpId: 12 },
  vendors: [{ id: "analytics", name: "Example Analytics", category: "measurement" }],
  vendorListVersion: "2025-10",
  customTranslations: {
    de: {
      banner: { title: "Datenschutz bei uns" },
      profiles: { strict: { banner: { description: "Streng nach DSGVO." } } }
    },
    en: { profiles: { strict: { banner: { description: "Strictly by the GDPR." } } } },
    "pt-BR": { banner: { title: "Sua privacidade" } }
  }
} as const
