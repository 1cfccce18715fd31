/** Response bodies in the wire shape of the `@svc/api` contract. */
import type { InitResponse } from "@svc/schema"

export const statusBody = {
  status: "ok",
  version: "3.0.0-test",
  timestamp: "2026-01-31T10:00:00.000Z",
  client: { ip: "127.0.0.1", userAgent: "node", acceptLanguage: null, country: null, region: null }
}

export const subjectId = "sub_abcdefgh1234"

const consentRecord = {
  consentId: "cns_1",
  type: "cookie_banner",
  domain: "example.com",
  givenAt: "2026-01-30T09:00:00.000Z",
  createdAt: "2026-01-30T09:00:01.000Z",
  preferences: { necessary: true, measurement: true, marketing: false, functionality: true, experience: false },
  receipts: { measurement: { value: true, confirmedAt: "2026-01-30T09:00:00.000Z" } },
  vendorChoice: null,
  isLatestPolicy: true,
  policyId: null,
  policyFingerprint: null,
  policyVersion: null,
  policyHash: null,
  policyEffectiveDate: null,
  runtimePolicySource: null,
  journeyId: null
}

export const subjectViewBody = {
  subject: {
    id: subjectId,
    externalId: "user-1",
    identityProvider: "external",
    verified: true,
    createdAt: "2026-01-30T09:00:01.000Z"
  },
  consents: [consentRecord],
  isValid: true,
  subjectChoice: { categories: { measurement: { value: true, confirmedAt: "2026-01-30T09:00:00.000Z" } } },
  subjectVendorChoice: null
}

export const linkBody = {
  subject: { id: subjectId, externalId: "user-1", identityProvider: "external", verified: true }
}

export const saveBody = {
  subjectId,
  consentId: "cns_1",
  appliedPreferences: consentRecord.preferences,
  givenAt: "2026-01-30T09:00:00.000Z",
  runtimePolicySource: null
}

export const listBody = {
  subjects: [{
    id: subjectId,
    externalId: "user-1",
    identityProvider: "external",
    createdAt: "2026-01-30T09:00:01.000Z",
    consents: [{
      ...consentRecord,
      type: "privacy_policy",
      policyVersion: "v2",
      policyHash: "abc",
      policyEffectiveDate: "2026-01-01T00:00:00.000Z"
    }]
  }]
}

export const checkBody = {
  results: {
    privacy_policy: { hasConsent: true, isLatestPolicy: false },
    cookie_banner: { hasConsent: false, isLatestPolicy: false }
  }
}

export const publishBody = {
  policy: {
    id: "pol_1",
    type: "privacy_policy",
    version: "v2",
    hash: "abc",
    effectiveDate: "2026-02-01T00:00:00.000Z",
    createdAt: "2026-01-31T10:00:00.000Z"
  }
}

export const summaryBody = {
  experimentId: "exp-1",
  from: "2026-01-01",
  to: null,
  domain: null,
  arms: [{
    arm: "a",
    choices: 3,
    byAction: { accept_all: 2, reject_all: 1 },
    bySurface: { banner: 3 },
    medianTimeToDecisionMs: 1200
  }]
}

export const manifestBody = {
  schemaVersion: 1,
  revision: "rev-1",
  hosting: "self-hosted",
  appName: null,
  branding: "svc",
  defaultLanguage: "en",
  languages: ["en"],
  policyPacks: [{
    id: "default",
    match: { default: true },
    model: "opt-out",
    categories: ["measurement"],
    fingerprint: "fp-1"
  }],
  translations: { en: { banner: { title: "Cookies" } } },
  iab: null,
  vendors: [],
  vendorListVersion: null
}

/**
 * A matched `/init` answer in the contract's wire shape. The browser's wire-contract test reads it
 * too, so the answer the client is handed and the one the banner reads are the same.
 */
export const initBody = {
  schemaVersion: 1,
  revision: "rev-1",
  hosting: "self-hosted",
  policyResolution: {
    status: "matched",
    reason: null,
    matchedBy: "country",
    policyId: "eu",
    fingerprint: "fp-eu",
    model: "opt-in"
  },
  policy: {
    id: "eu",
    match: { countries: ["DE"] },
    model: "opt-in",
    categories: ["measurement", "marketing"],
    prompt: "banner",
    fingerprint: "fp-eu"
  },
  location: { country: "DE", region: null },
  language: "en",
  translations: { banner: { title: "Cookies" } },
  gpc: false,
  appName: null,
  branding: "svc",
  iab: null,
  vendors: [],
  vendorListVersion: null,
  experiment: null,
  journey: null
} satisfies typeof InitResponse.Encoded
