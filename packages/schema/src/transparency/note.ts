import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto"

/**
 * C2SP signed notes with Ed25519 (https://c2sp.org/signed-note), the format of Go's
 * `golang.org/x/mod/sumdb/note`: a text ending in a newline, a blank line, then signature lines
 * `— <key name> <base64(key id || signature)>`. Keys are written as that package writes them:
 * a signer key `PRIVATE+KEY+<name>+<key id hex>+<base64(0x01 || seed)>`, a verifier key
 * `<name>+<key id hex>+<base64(0x01 || public key)>`, the key id being the first four bytes of
 * `SHA-256(name || 0x0A || 0x01 || public key)`.
 */

const ED25519 = 1
const SIGNATURE_PREFIX = "\u2014 "
/** Go's note package refuses notes with more signatures than this. */
const MAX_SIGNATURES = 100

/**
 * A signer of C2SP notes with one Ed25519 key: its name, key id, the verifier key to publish, and
 * `sign`, which returns the text with its signature line.
 *
 * @example
 * ```ts
 * import { checkpointText, type NoteSigner, type TreeBuilder } from "@svc/schema/transparency"
 *
 * // A test log signs its checkpoints as svc does: the key's name is the origin line.
 * const signCheckpoint = (signer: NoteSigner, tree: TreeBuilder) =>
 *   signer.sign(checkpointText({ origin: signer.name, size: tree.size, root: tree.root() }))
 * ```
 */
export interface NoteSigner {
  readonly name: string
  readonly keyId: Buffer
  /** `<name>+<hash>+<base64>`: what a verifier needs, safe to publish. */
  readonly verifierKey: string
  readonly sign: (text: string) => string
}

/**
 * A verifier of C2SP notes signed by one Ed25519 key: its name, key id and public key, and `verify`
 * for one signature.
 *
 * @example
 * ```ts
 * import type { NoteVerifier } from "@svc/schema/transparency"
 *
 * // How an audit report names the key it checked against.
 * const keyLabel = (verifier: NoteVerifier) => `${verifier.name} (key id ${verifier.keyId.toString("hex")})`
 * ```
 */
export interface NoteVerifier {
  readonly name: string
  readonly keyId: Buffer
  readonly publicKey: Buffer
  readonly verify: (message: Uint8Array, signature: Uint8Array) => boolean
}

/**
 * A key name: non-empty, no space of any kind, no `+`.
 *
 * @example
 * ```ts
 * import { isKeyName } from "@svc/schema/transparency"
 *
 * isKeyName("consent.example.com/log") // true: the host that serves the log is a good name
 * isKeyName("consent log") // false
 * ```
 */
export const isKeyName = (name: string): boolean =>
  name.length > 0 && !/[\s+\u00a0\u2000-\u200b\u2028\u2029\u3000]/u.test(name)

const keyIdOf = (name: string, publicKey: Uint8Array): Buffer =>
  createHash("sha256").update(name, "utf8").update(Buffer.from([0x0a, ED25519])).update(publicKey).digest().subarray(
    0,
    4
  )

// A raw Ed25519 key goes into node:crypto through its fixed DER prefix (PKCS#8 / SPKI).
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex")
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex")

const publicKeyObject = (raw: Uint8Array) =>
  createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" })

const decodeBase64 = (text: string): Buffer | undefined =>
  /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0 ? Buffer.from(text, "base64") : undefined

/** `<name>+<hash>+<data>`: the data is base64, which may itself hold `+`. */
const splitKey = (text: string): readonly [string, string, string] | undefined => {
  const first = text.indexOf("+")
  const second = first < 0 ? -1 : text.indexOf("+", first + 1)
  return second < 0 ? undefined : [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)]
}

/**
 * Reads a verifier key; `undefined` when it is not a well-formed Ed25519 verifier key.
 *
 * @example
 * ```ts
 * import { parseVerifierKey } from "@svc/schema/transparency"
 *
 * // The verifier key from the auditor's files (never from the server being checked).
 * const verifier = parseVerifierKey(process.env.SVC_LOG_VERIFIER_KEY ?? "")
 * if (verifier === undefined) throw new Error("SVC_LOG_VERIFIER_KEY is not an Ed25519 note verifier key")
 * console.log(`checking checkpoints of ${verifier.name}`)
 * ```
 */
export const parseVerifierKey = (text: string): NoteVerifier | undefined => {
  const parts = splitKey(text)
  if (parts === undefined) return undefined
  const [name, hash, data] = parts
  const raw = decodeBase64(data)
  if (!isKeyName(name) || !/^[0-9a-f]{8}$/.test(hash) || raw?.length !== 33 || raw[0] !== ED25519) return undefined
  const publicKey = raw.subarray(1)
  const keyId = keyIdOf(name, publicKey)
  if (keyId.toString("hex") !== hash) return undefined
  const key = publicKeyObject(publicKey)
  return {
    name,
    keyId,
    publicKey,
    verify: (message, signature) => signature.length === 64 && verify(null, message, key, signature)
  }
}

/**
 * Reads a signer key; `undefined` when it is not a well-formed Ed25519 signer key.
 *
 * @example
 * ```ts
 * import { parseSignerKey } from "@svc/schema/transparency"
 *
 * // Before a deploy: the configured signing key belongs to the verifier key the auditors hold.
 * const signer = parseSignerKey(process.env.SVC_LOG_SIGNING_KEY ?? "")
 * if (signer?.verifierKey !== process.env.SVC_LOG_VERIFIER_KEY) {
 *   throw new Error("transparencyLog.signingKey does not match the published verifier key")
 * }
 * ```
 */
export const parseSignerKey = (text: string): NoteSigner | undefined => {
  const parts = text.startsWith("PRIVATE+KEY+") ? splitKey(text.slice("PRIVATE+KEY+".length)) : undefined
  if (parts === undefined) return undefined
  const [name, hash, data] = parts
  const raw = decodeBase64(data)
  if (!isKeyName(name) || !/^[0-9a-f]{8}$/.test(hash) || raw?.length !== 33 || raw[0] !== ED25519) return undefined
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, raw.subarray(1)]),
    format: "der",
    type: "pkcs8"
  })
  const publicKey = createPublicKey(privateKey).export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX.length)
  const keyId = keyIdOf(name, publicKey)
  if (keyId.toString("hex") !== hash) return undefined
  const verifierKey = `${name}+${hash}+${Buffer.concat([Buffer.from([ED25519]), publicKey]).toString("base64")}`
  return {
    name,
    keyId,
    verifierKey,
    sign: (text) => {
      const signature = sign(null, Buffer.from(text, "utf8"), privateKey)
      return `${text}\n${SIGNATURE_PREFIX}${name} ${Buffer.concat([keyId, signature]).toString("base64")}\n`
    }
  }
}

/**
 * A new Ed25519 signer key named `name`, and its verifier key.
 *
 * @example
 * ```ts
 * import { generateSignerKey } from "@svc/schema/transparency"
 *
 * // A key for a staging log: the signer key is a secret for `transparencyLog.signingKey`,
 * // the verifier key is public (`GET /log/key` answers it).
 * const { signerKey, verifierKey } = generateSignerKey("consent-staging.example.com/log")
 * ```
 */
export const generateSignerKey = (name: string): { readonly signerKey: string; readonly verifierKey: string } => {
  if (!isKeyName(name)) throw new Error(`A key name must be non-empty, without spaces or "+": ${JSON.stringify(name)}`)
  const { privateKey, publicKey } = generateKeyPairSync("ed25519")
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(PKCS8_PREFIX.length)
  const pub = publicKey.export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX.length)
  const hash = keyIdOf(name, pub).toString("hex")
  return {
    signerKey: `PRIVATE+KEY+${name}+${hash}+${Buffer.concat([Buffer.from([ED25519]), seed]).toString("base64")}`,
    verifierKey: `${name}+${hash}+${Buffer.concat([Buffer.from([ED25519]), pub]).toString("base64")}`
  }
}

/**
 * Opens a signed note with one verifier: the note's text when it is well formed and carries a
 * valid signature by that key, else `undefined`. A signature line by the verifier's name and key
 * id that does not verify rejects the note; lines by other keys are ignored (C2SP signed-note).
 *
 * @example
 * ```ts
 * import { generateSignerKey, openNote, parseSignerKey, parseVerifierKey } from "@svc/schema/transparency"
 *
 * const keys = generateSignerKey("test.example.com/log")
 * const [signer, verifier] = [parseSignerKey(keys.signerKey), parseVerifierKey(keys.verifierKey)]
 * if (signer !== undefined && verifier !== undefined) {
 *   const note = signer.sign("test.example.com/log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n")
 *   openNote(note, verifier) // the signed text
 *   openNote(note.replace("\n0\n", "\n1\n"), verifier) // undefined: the text was changed after signing
 * }
 * ```
 */
export const openNote = (note: string, verifier: NoteVerifier): string | undefined => {
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note) || !note.endsWith("\n")) return undefined
  const split = note.lastIndexOf("\n\n")
  if (split < 0) return undefined
  const text = note.slice(0, split + 1)
  const lines = note.slice(split + 2, -1).split("\n")
  if (lines.length === 0 || lines.length > MAX_SIGNATURES) return undefined
  let verified = false
  for (const line of lines) {
    if (!line.startsWith(SIGNATURE_PREFIX)) return undefined
    const fields = line.slice(SIGNATURE_PREFIX.length).split(" ")
    if (fields.length !== 2) return undefined
    const [name = "", encoded = ""] = fields
    const raw = decodeBase64(encoded)
    if (!isKeyName(name) || raw === undefined || raw.length < 5) return undefined
    if (name !== verifier.name || !raw.subarray(0, 4).equals(verifier.keyId)) continue
    if (!verifier.verify(Buffer.from(text, "utf8"), raw.subarray(4))) return undefined
    verified = true
  }
  return verified ? text : undefined
}
