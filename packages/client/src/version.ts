/**
 * Sent as `x-svc-version` on every request; kept equal to package.json by a test.
 *
 * @example
 * ```ts
 * import { CLIENT_VERSION, createSvcClient } from "@svc/client"
 *
 * // The start-up log says which client talks to which backend version.
 * const svc = createSvcClient({ baseUrl: "https://consent.example.com" })
 * const status = await svc.status()
 * console.log(`@svc/client ${CLIENT_VERSION}, backend ${status.ok ? status.data.version : "unreachable"}`)
 * ```
 */
export const CLIENT_VERSION = "3.0.0-alpha.1"

/** The policy contract this client reads (`x-svc-policy-contract`). The v3 backend accepts only `1`. */
export const POLICY_CONTRACT = "1"
