import type { SvcOptions } from "@svc/backend"

/** Countries where the GDPR (and the UK GDPR) applies: consent before any optional category. */
const EEA_AND_UK = [
  "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU",
  "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "IS", "LI", "NO", "GB", "CH"
]

/**
 * What `svc serve` runs with no config file: an embedded SQLite file and a manifest that shows
 * the main policy shapes (EU opt-in, California opt-out, an IAB rule, a default).
 */
export const demoOptions = (databaseUrl: string): SvcOptions => ({
  database: { dialect: "sqlite", url: databaseUrl },
  trustedOrigins: ["localhost", "127.0.0.1", "[::1]"],
  manifest: {
    appName: "svc demo",
    policyRules: [
      {
        id: "us-ca-opt-out",
        match: { regions: ["US-CA"] },
        model: "opt-out",
        categories: ["measurement", "marketing", "functionality", "experience"],
        gpcDenies: ["marketing"]
      },
      {
        id: "eu-iab",
        match: { countries: ["FR"] },
        model: "iab",
        categories: ["measurement", "marketing", "functionality", "experience"]
      },
      {
        id: "eu-opt-in",
        match: { countries: EEA_AND_UK },
        model: "opt-in",
        categories: ["measurement", "marketing", "functionality", "experience"],
        validityDays: 365
      },
      {
        id: "unknown-location",
        match: { fallback: true },
        model: "opt-in",
        categories: ["measurement", "marketing", "functionality", "experience"]
      },
      {
        id: "rest-of-world",
        match: { default: true },
        model: "opt-out",
        categories: ["measurement", "marketing", "functionality", "experience"],
        gpcDenies: ["marketing"]
      }
    ],
    iab: { enabled: true, cmpId: 0 },
    vendors: [
      { id: "analytics", name: "Example Analytics", category: "measurement" },
      { id: "ads", name: "Example Ads", category: "marketing" }
    ]
  }
})
