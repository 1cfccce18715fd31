/** A valid `POST /sessions` body: a route report that matched the "eu" rule of the test manifest. */
export const sessionReport = {
  source: "route",
  revision: "rev-1",
  resolution: "matched",
  policy: { id: "eu", fingerprint: "fp-1", matchedBy: "country", model: "opt-in" },
  country: "DE",
  region: null,
  language: "de",
  gpc: false
} as const
