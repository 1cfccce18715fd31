import { generateSignerKey } from "@svc/schema/transparency"

/**
 * A new note signer key for `transparencyLog.signingKey` and its verifier key (`svc keys log`).
 * The name is the log's origin line in every checkpoint: a stable name such as `consent.example.com/log`.
 */
export const generateLogSignerKey = (name: string): { readonly signerKey: string; readonly verifierKey: string } =>
  generateSignerKey(name)
