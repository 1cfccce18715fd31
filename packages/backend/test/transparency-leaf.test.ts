import fc from "fast-check"
import { createHash } from "node:crypto"
import { createRequire } from "node:module"
import { describe, expect, it } from "vitest"
import { type LeafColumns, leafData, personalCommitment } from "../src/transparency/leaf.js"

/**
 * The leaf and the commitment are RFC 8785 JSON of the objects docs/transparency-log.md lists:
 * written member by member in a fixed order, they must equal `canonicalize` of the whole object
 * (which sorts the members itself) for any row.
 */
// The reference: CommonJS assigning `module.exports` while its typings declare a default export,
// so required it is the function itself (as src/transparency/leaf.ts loads it); cast to that.
const canonicalize = createRequire(import.meta.url)("canonicalize") as (value: unknown) => string

/** A JSON column as the leaf reads it: parsed, or the text itself when it is not JSON. */
const parsed = (text: string | null): unknown => {
  if (text === null) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The leaf object as docs/transparency-log.md defines it. */
const documentedLeaf = (row: LeafColumns) => ({
  v: 1,
  consentId: row.id,
  tenant: row.tenant_id,
  type: row.type,
  domain: row.domain,
  givenAt: row.given_at,
  createdAt: row.created_at,
  policyId: row.policy_id,
  policyFingerprint: row.policy_fingerprint,
  legalReleaseId: row.legal_release_id,
  preferences: parsed(row.preferences),
  receipts: parsed(row.receipts),
  vendorChoice: parsed(row.vendor_choice),
  gpc: parsed(row.gpc),
  gppString: row.gpp_string,
  gppSectionIds: row.gpp_section_ids,
  tcString: row.tc_string,
  personalData: row.log_commitment
})

const text = fc.oneof(fc.string(), fc.fullUnicodeString(), fc.constantFrom("", '"', "\\\\", "\u2028", "\ud800"))
const nullableText = fc.option(text, { nil: null })
/** A JSON column: JSON text of any value, or text that is not JSON, or null. */
const jsonColumn = fc.option(fc.oneof(fc.jsonValue().map((value) => JSON.stringify(value)), text), { nil: null })
const time = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })

const row: fc.Arbitrary<LeafColumns> = fc.record({
  id: text,
  tenant_id: text,
  type: text,
  domain: text,
  given_at: time,
  created_at: time,
  policy_id: nullableText,
  policy_fingerprint: nullableText,
  legal_release_id: nullableText,
  preferences: jsonColumn,
  receipts: jsonColumn,
  vendor_choice: jsonColumn,
  gpc: jsonColumn,
  gpp_string: nullableText,
  gpp_section_ids: nullableText,
  tc_string: nullableText,
  log_commitment: nullableText
})

describe("transparency log leaves", () => {
  it("a leaf is the RFC 8785 JSON of the documented object", () => {
    fc.assert(
      fc.property(row, (columns) => {
        expect(leafData(columns).toString("utf8")).toBe(canonicalize(documentedLeaf(columns)))
      }),
      { numRuns: 500 }
    )
  })

  it("a commitment hashes the salt and the RFC 8785 JSON of the personal data", () => {
    const personal = fc.record({
      subjectId: text,
      externalId: nullableText,
      ipAddress: nullableText,
      userAgent: nullableText
    })
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), personal, (salt, data) => {
        const expected = createHash("sha256").update(salt).update(canonicalize(data), "utf8").digest("base64")
        expect(personalCommitment(Buffer.from(salt), data)).toBe(expected)
      }),
      { numRuns: 300 }
    )
  })
})
