// The server the README's curl walkthrough talks to: `npx svc serve --config examples/http-api.config.ts`.
import { defineConfig } from "@svc/backend"

export default defineConfig({
  database: { dialect: "sqlite", url: "./svc.db" },   // SVC_DATABASE_URL replaces the url
  trustedOrigins: ["www.example.com"],
  apiKeys: [process.env.SVC_API_KEY!],
  policySnapshot: { signingKey: process.env.SVC_SNAPSHOT_KEY! },
  manifest: {
    policyRules: [
      { id: "eu", match: { countries: ["DE", "FR", "IT"] }, model: "opt-in",
        categories: ["measurement", "marketing"] },
      // The visitor's country is unknown (no location header, no ?country=): ask, as in the EU.
      { id: "unknown-location", match: { fallback: true }, model: "opt-in",
        categories: ["measurement", "marketing"] },
      { id: "everyone-else", match: { default: true }, model: "none", categories: [] }
    ]
  }
})
