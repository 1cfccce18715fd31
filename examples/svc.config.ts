// svc.config.ts
import { defineConfig } from "@svc/backend"

export default defineConfig({
  database: { dialect: "postgres", url: "postgres://svc@db/svc", schema: "consent" },
  trustedOrigins: ["www.example.com", "*.example.com"],
  apiKeys: [process.env.SVC_API_KEY!],          // the file may read env (svc reads SVC_API_KEYS itself too)
  policySnapshot: { signingKey: process.env.SVC_SNAPSHOT_KEY! },
  identityToken: { signingKey: process.env.SVC_IDENTITY_KEY! },
  manifest: {
    policyRules: [
      { id: "eu", match: { countries: ["DE", "FR", "IT"] }, model: "opt-in",
        categories: ["measurement", "marketing"] },
      { id: "california", match: { regions: ["US-CA"] }, model: "opt-out",
        categories: ["measurement", "marketing"], gpcDenies: ["marketing"] },
      { id: "everyone-else", match: { default: true }, model: "none", categories: [] }
    ]
  }
})
