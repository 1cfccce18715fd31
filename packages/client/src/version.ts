/** Sent as `x-svc-version` on every request; kept equal to package.json by a test. */
export const CLIENT_VERSION = "3.0.0-alpha.1"

/** The policy contract this client reads (`x-svc-policy-contract`). The v3 backend accepts only `1`. */
export const POLICY_CONTRACT = "1"
