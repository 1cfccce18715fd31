import { HttpApi } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { ConsentRecord, SubjectView } from "@svc/schema"
import { Arbitrary, Option, Schema, type SchemaAST } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { compileEncoder } from "../src/http/compiled-encoder.js"

// The compiled encoder must answer exactly what Effect's encoder answers: the same JSON text
// (values and key order), and a throw where Effect throws. Checked for every success schema of
// the contract, with values generated from the schema itself and with values of no schema.

const successSchemas = (): ReadonlyArray<{ readonly label: string; readonly schema: Schema.Schema<any, any> }> => {
  const found: Array<{ label: string; schema: Schema.Schema<any, any> }> = []
  HttpApi.reflect(SvcApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, successes }) => {
      for (const [status, success] of successes) {
        Option.map(
          success.ast,
          (ast: SchemaAST.AST) =>
            found.push({ label: `${endpoint.method} ${endpoint.path} ${status}`, schema: Schema.make(ast) })
        )
      }
    }
  })
  return found
}

type Outcome = { readonly json: string } | { readonly threw: string }

const outcome = (encode: (value: unknown) => unknown, value: unknown): Outcome => {
  try {
    return { json: JSON.stringify(encode(value)) }
  } catch (error) {
    return { threw: error instanceof Error ? error.name : String(error) }
  }
}

const sameAsEffect = (schema: Schema.Schema<any, any>) => {
  const compiled = compileEncoder(schema)
  const reference = Schema.encodeSync(schema)
  return (value: unknown): void => {
    expect(outcome(compiled, value)).toEqual(outcome(reference, value))
  }
}

describe("compiled response encoder", () => {
  const schemas = successSchemas()

  it("finds the contract's success schemas", () => {
    expect(schemas.length).toBeGreaterThan(15)
    expect(schemas.map((s) => s.label)).toContain("GET /subjects/:id 200")
  })

  for (const { label, schema } of schemas) {
    it(`encodes ${label} exactly as Effect does`, () => {
      const check = sameAsEffect(schema)
      fc.assert(fc.property(Arbitrary.make(schema), check), { numRuns: 150 })
      fc.assert(fc.property(fc.anything(), check), { numRuns: 50 })
    })
  }

  it("encodes a stored record's dates, absent optionals and nulls as Effect does", () => {
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))
    const record: ConsentRecord = {
      consentId: "cns_abc" as ConsentRecord["consentId"],
      type: "cookie_banner",
      domain: "shop.example",
      givenAt: at,
      createdAt: at,
      preferences: { necessary: true, marketing: false },
      receipts: { marketing: { value: false, confirmedAt: at } },
      vendorChoice: null,
      isLatestPolicy: true,
      policyId: null,
      policyFingerprint: "fp",
      policyVersion: null,
      policyHash: null,
      policyEffectiveDate: null,
      runtimePolicySource: "snapshot_token",
      journeyId: null
    }
    const view: SubjectView = {
      subject: {
        id: "sub_abcdefgh" as SubjectView["subject"]["id"],
        externalId: null,
        identityProvider: null,
        verified: false,
        createdAt: at
      },
      consents: [record, { ...record, gppSectionIds: [7, 8], tcString: "CP" }],
      isValid: true,
      subjectChoice: null,
      subjectVendorChoice: null
    }
    const encoded = JSON.stringify(compileEncoder(SubjectView)(view))
    expect(encoded).toBe(JSON.stringify(Schema.encodeSync(SubjectView)(view)))
    expect(encoded).toContain(`"givenAt":"2026-01-02T03:04:05.006Z"`)
  })

  it("throws Effect's error for a value its schema refuses", () => {
    const check = sameAsEffect(ConsentRecord)
    const bad = { consentId: "not-a-consent-id", type: "cookie_banner" }
    check(bad)
    expect(() => compileEncoder(ConsentRecord)(bad as never)).toThrow(/ConsentId|Expected/)
    // a preference the schema does not know is refused (`onExcessProperty: "error"` on Preferences)
    check({ preferences: { necessary: true, bogus: true } })
  })
})
