import { randomBytes } from "node:crypto"
import { UsageError } from "./usage-error.js"
import { logKeysCommand } from "./verify.js"

/** One kind of secret `svc keys <kind>` prints: where it goes, and a fresh random value of its form. */
interface KeyKind {
  /** The option (or options) the value is for, as the usage lists it. */
  readonly option: string
  /** `name`: `--name`, the key's name where the form has one (the log's signer key). */
  readonly generate: (options: { readonly name?: string | undefined }) => string
}

/** 32 random bytes as base64url (43 characters): a key svc reads as the string's bytes. */
const randomKey = () => randomBytes(32).toString("base64url")

/**
 * Every kind `svc keys` knows. Adding a kind is one entry here (the config's "at least 32 bytes"
 * messages name `svc keys <kind>`).
 */
export const keyKinds = {
  api: { option: "apiKeys (a bearer key for the administrative routes)", generate: randomKey },
  snapshot: { option: "policySnapshot.signingKey, legalDocumentSnapshot.signingKey", generate: randomKey },
  identity: { option: "identityToken.signingKey", generate: randomKey },
  // Standard Webhooks: `whsec_` and standard base64 of the secret's bytes.
  webhook: { option: "webhooks[].secret", generate: () => `whsec_${randomBytes(32).toString("base64")}` },
  // A C2SP note signer key and, after it, its verifier key (docs/transparency-log.md).
  log: { option: "transparencyLog.signingKey [--name NAME]", generate: ({ name }) => logKeysCommand(name) }
} as const satisfies Record<string, KeyKind>

export type KeyKindName = keyof typeof keyKinds

const isKind = (name: string): name is KeyKindName => Object.hasOwn(keyKinds, name)

/** The usage lines of `svc keys`, one per kind. */
export const keysUsage = (): string =>
  Object.entries(keyKinds).map(([name, kind]) => `    ${name.padEnd(9)} ${kind.option}`).join("\n")

/**
 * `svc keys <kind>`: a fresh value on stdout, nothing else (so `$(svc keys api)` is the key); `log`
 * prints the signer key and its verifier key, each under a comment line.
 */
export const keys = (kind: string | undefined, options: { readonly name?: string | undefined } = {}): string => {
  if (kind === undefined || !isKind(kind)) {
    throw new UsageError(
      `svc keys: ${kind === undefined ? "name a kind" : `unknown kind "${kind}"`}; one of ${
        Object.keys(keyKinds).join(", ")
      }`
    )
  }
  return keyKinds[kind].generate(options)
}
