// The manifest both backends (the fake and the real server) run the browser tests with.
const categories = ["measurement", "marketing", "functionality", "experience"] as const

export const testPolicyRules = [
  { id: "us-ca-opt-out", match: { regions: ["US-CA"] }, model: "opt-out", categories, gpcDenies: ["marketing"] },
  { id: "fr-iab", match: { countries: ["FR"] }, model: "iab", categories },
  {
    id: "eu-opt-in",
    match: { countries: ["DE", "AT", "NL"] },
    model: "opt-in",
    categories: ["measurement", "marketing"]
  },
  { id: "rest-opt-out", match: { default: true }, model: "opt-out", categories, gpcDenies: ["marketing"] }
] as const

export const testVendors = [
  { id: "analytics", name: "Example Analytics", category: "measurement" },
  { id: "ads", name: "Example Ads", category: "marketing" }
] as const

/** A small Global Vendor List in the v3 shape. */
export const testGvl = {
  gvlSpecificationVersion: 3,
  vendorListVersion: 91,
  tcfPolicyVersion: 5,
  lastUpdated: "2025-06-01T16:00:00Z",
  purposes: Object.fromEntries(
    [
      "Store and/or access information on a device",
      "Use limited data to select advertising",
      "Create profiles for personalised advertising",
      "Use profiles to select personalised advertising",
      "Create profiles to personalise content",
      "Use profiles to select personalised content",
      "Measure advertising performance",
      "Measure content performance",
      "Understand audiences through statistics or combinations of data from different sources",
      "Develop and improve services",
      "Use limited data to select content"
    ].map((name, i) => [String(i + 1), { id: i + 1, name, description: name }])
  ),
  vendors: {
    "2": {
      id: 2,
      name: "Captify",
      purposes: [1, 2, 3, 4],
      legIntPurposes: [7],
      urls: [{ langId: "en", privacy: "https://example.com/captify" }]
    },
    "8": { id: 8, name: "Emerse", purposes: [1, 7], legIntPurposes: [], urls: [] },
    "755": {
      id: 755,
      name: "Google Advertising Products",
      purposes: [1, 2, 3, 4, 7, 9, 10],
      legIntPurposes: [],
      urls: []
    },
    "90": { id: 90, name: "Retired Vendor", purposes: [1], deletedDate: "2024-01-01T00:00:00Z" }
  }
}
