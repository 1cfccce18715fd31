import { hash, randomBytes } from "node:crypto"
import { createRequire } from "node:module"
import { Schema } from "effect"
import { Millis } from "../database/columns.js"

/**
 * The leaf data of a consent act (docs/transparency-log.md, "Leaf format"): the RFC 8785
 * canonical JSON of its proof fields, personal data only through `personalData`, a salted
 * commitment. Everything here survives erasure and retention unchanged, so every proof still
 * verifies once the personal data and the salt are gone.
 */

/** The format version written in every leaf as `v`. */
export const LEAF_FORMAT_VERSION = 1

const Text = Schema.NullOr(Schema.String)

/** The columns of `svc_consents` a leaf is made of. */
export const LeafColumns = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  type: Schema.String,
  domain: Schema.String,
  given_at: Millis,
  created_at: Millis,
  policy_id: Text,
  policy_fingerprint: Text,
  legal_release_id: Text,
  preferences: Text,
  receipts: Text,
  vendor_choice: Text,
  gpc: Text,
  gpp_string: Text,
  gpp_section_ids: Text,
  tc_string: Text,
  log_commitment: Text
})
export type LeafColumns = typeof LeafColumns.Type

/** The leaf's columns as SQL, for a `SELECT` from `svc_consents` aliased `c`. */
export const LEAF_COLUMN_LIST = "c.id, c.tenant_id, c.type, c.domain, c.given_at, c.created_at, c.policy_id, " +
  "c.policy_fingerprint, c.legal_release_id, c.preferences, c.receipts, c.vendor_choice, c.gpc, c.gpp_string, " +
  "c.gpp_section_ids, c.tc_string, c.log_commitment"

/** A JSON column as its value; text that is not JSON stays the string it is (and so never matches a leaf made from JSON). */
const json = (text: string | null): unknown => {
  if (text === null) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

type Canonicalize = (value: unknown) => string | undefined
const isCanonicalize = (u: unknown): u is Canonicalize => typeof u === "function"
// `canonicalize` (RFC 8785, by one of its authors) is CommonJS assigning `module.exports` while
// its typings declare a default export; required, it is the function itself.
const loaded: unknown = createRequire(import.meta.url)("canonicalize")
if (!isCanonicalize(loaded)) throw new Error("the canonicalize package did not load as a function")
const canonicalize: Canonicalize = loaded

const canonical = (value: unknown): string => {
  const text = canonicalize(value)
  if (text === undefined) throw new Error("a leaf has no JSON form")
  return text
}

/**
 * The leaf data (UTF-8 bytes of the canonical JSON) of one stored act. Its members are always the
 * same, so their RFC 8785 order (by UTF-16 code units) is written out here once instead of sorted
 * for every leaf; every value is serialized by `canonicalize`. Equal to `canonicalize` of the whole
 * object in docs/transparency-log.md (test/transparency-leaf.test.ts).
 */
export const leafData = (row: LeafColumns): Buffer =>
  Buffer.from(
    `{"consentId":${canonical(row.id)},"createdAt":${canonical(row.created_at)},"domain":${canonical(row.domain)},` +
      `"givenAt":${canonical(row.given_at)},"gpc":${canonical(json(row.gpc))},` +
      `"gppSectionIds":${canonical(row.gpp_section_ids)},"gppString":${canonical(row.gpp_string)},` +
      `"legalReleaseId":${canonical(row.legal_release_id)},"personalData":${canonical(row.log_commitment)},` +
      `"policyFingerprint":${canonical(row.policy_fingerprint)},"policyId":${canonical(row.policy_id)},` +
      `"preferences":${canonical(json(row.preferences))},"receipts":${canonical(json(row.receipts))},` +
      `"tcString":${canonical(row.tc_string)},"tenant":${canonical(row.tenant_id)},"type":${canonical(row.type)},` +
      `"v":${LEAF_FORMAT_VERSION},"vendorChoice":${canonical(json(row.vendor_choice))}}`,
    "utf8"
  )

/** The personal data of an act a commitment binds: what erasure and retention remove. */
export interface PersonalData {
  readonly subjectId: string
  readonly externalId: string | null
  readonly ipAddress: string | null
  readonly userAgent: string | null
}

/**
 * `base64(SHA-256(salt || canonical JSON of the personal data))`; the four members in their RFC
 * 8785 order, each value by `canonicalize`, as in `leafData`.
 */
export const personalCommitment = (salt: Buffer, personal: PersonalData): string =>
  hash(
    "sha256",
    Buffer.concat([
      salt,
      Buffer.from(
        `{"externalId":${canonical(personal.externalId)},"ipAddress":${canonical(personal.ipAddress)},` +
          `"subjectId":${canonical(personal.subjectId)},"userAgent":${canonical(personal.userAgent)}}`,
        "utf8"
      )
    ]),
    "base64"
  )

/**
 * The commitment under a salt, for a save: `{ salt, commitment }` in base64. The salt is 16 fresh
 * random bytes (the caller's, when it draws them from its own pool).
 */
export const commitPersonalData = (
  personal: PersonalData,
  salt: Buffer = randomBytes(16)
): { readonly salt: string; readonly commitment: string } => ({
  salt: salt.toString("base64"),
  commitment: personalCommitment(salt, personal)
})
