import { defineConfig } from "@svc/backend"

export default defineConfig({
  database: { dialect: "sqlite", url: "./svc.db" },
  manifest: {
    consentMode: {
      // the defaults: ad_storage, ad_user_data, ad_personalization ← marketing, analytics_storage ←
      // measurement, functionality_storage ← functionality, personalization_storage ← experience,
      // security_storage ← necessary (always granted)
      mapping: { personalization_storage: "functionality" },
      waitForUpdate: 500                              // ms, the default
    },
    policyRules: [
      { id: "eu", match: { countries: ["DE", "FR"] }, model: "opt-in", categories: ["measurement", "marketing"],
        consentMode: { ad_user_data: "measurement" } }  // this rule's own overrides
    ]
  }
})
