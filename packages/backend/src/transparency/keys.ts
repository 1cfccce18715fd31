import { generateSignerKey } from "@svc/schema/transparency"

/**
 * A new note signer key for `transparencyLog.signingKey` and its verifier key (`svc keys log`).
 * The name is the log's origin line in every checkpoint: a stable name such as `consent.example.com/log`.
 *
 * @example
 * ```ts
 * import { generateLogSignerKey } from "@svc/backend"
 *
 * // Once, when the log is set up: the signer key goes into the secret store, the verifier key is published.
 * const { signerKey, verifierKey } = generateLogSignerKey("consent.example.com/log")
 * console.log(`SVC_LOG_SIGNER_KEY=${signerKey}`)
 * console.log(`publish at https://www.example.com/.well-known/consent-log-key: ${verifierKey}`)
 * ```
 */
export const generateLogSignerKey = (name: string): { readonly signerKey: string; readonly verifierKey: string } =>
  generateSignerKey(name)
