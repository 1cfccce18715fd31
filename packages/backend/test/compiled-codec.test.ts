import { HttpApi } from "@effect/platform"
import { InitHeaders, InitQuery, SvcApi } from "@svc/api"
import { ConsentRecord, SubjectView } from "@svc/schema"
import { Arbitrary, Option, Schema, type SchemaAST } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { compileDecoder, compileEncoder, compileRowDecoder } from "../src/codec/compiled.js"
import { isoDateString } from "../src/codec/iso-date.js"
import { ConsentColumns, ConsentRow } from "../src/consents/repository.js"
import { SubjectColumnsBeside } from "../src/identity/subjects-repository.js"
import { PeriodRow } from "../src/records/period-repository.js"

// The compiled encoder and decoder must answer exactly what Effect's answer: the same JSON text
// (values and key order), and a throw where Effect throws. Checked for every success schema of
// the contract and the row schemas, with values generated from the schema itself and with values
// of no schema.

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
    return { json: JSON.stringify(encode(value), (_, v: unknown) => typeof v === "bigint" ? `${v}n` : v) }
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

const sameDecodeAsEffect = (schema: Schema.Schema<any, any>) => {
  const compiled = compileDecoder(schema)
  const reference = Schema.decodeUnknownSync(schema)
  return (value: unknown): void => {
    expect(outcome(compiled, value)).toEqual(outcome(reference, value))
  }
}

/** A value of `schema` as it travels (generated on the type side, then encoded by Effect). */
const encodedArbitrary = (schema: Schema.Schema<any, any>) => {
  const encode = Schema.encodeSync(schema)
  return Arbitrary.make(schema).map((value) => {
    try {
      return encode(value)
    } catch {
      return value // a value the schema's own arbitrary made but cannot encode: decoding must refuse it alike
    }
  })
}

describe("compiled decoder", () => {
  for (const { label, schema } of successSchemas()) {
    it(`decodes ${label} exactly as Effect does`, () => {
      const check = sameDecodeAsEffect(schema)
      fc.assert(fc.property(encodedArbitrary(schema), check), { numRuns: 60 })
      fc.assert(fc.property(fc.anything(), check), { numRuns: 30 })
    })
  }

  const rowSchemas: Record<string, Schema.Schema<any, any>> = { ConsentRow, ConsentColumns, PeriodRow }
  for (const [name, schema] of Object.entries(rowSchemas)) {
    it(`decodes ${name} rows as each driver returns them exactly as Effect does`, () => {
      const check = sameDecodeAsEffect(schema)
      fc.assert(fc.property(encodedArbitrary(schema), check), { numRuns: 150 })
      // BIGINT columns come back as numbers (SQLite, MySQL), strings (Postgres) or not at all
      const millis = fc.oneof(
        fc.integer({ min: 0 }),
        fc.integer({ min: 0 }).map(String),
        fc.string(),
        fc.constant(null)
      )
      fc.assert(
        fc.property(
          encodedArbitrary(schema),
          millis,
          millis,
          (row, givenAt, createdAt) => check({ ...row, given_at: givenAt, created_at: createdAt })
        ),
        { numRuns: 150 }
      )
      fc.assert(fc.property(fc.anything(), check), { numRuns: 25 })
    })
  }

  it("decodes /init's query and headers (the fast path's inputs) exactly as Effect does", () => {
    const query = sameDecodeAsEffect(InitQuery)
    const headers = sameDecodeAsEffect(InitHeaders)
    fc.assert(fc.property(encodedArbitrary(InitQuery), query), { numRuns: 150 })
    fc.assert(fc.property(encodedArbitrary(InitHeaders), headers), { numRuns: 150 })
    // as node:http and URLSearchParams hand them over: other names beside, a repeated name as an array
    const values = fc.oneof(fc.string(), fc.array(fc.string(), { minLength: 2, maxLength: 3 }), fc.constant(undefined))
    const named = (names: ReadonlyArray<string>) =>
      fc.dictionary(fc.oneof(fc.constantFrom(...names), fc.string()), values, { maxKeys: 12 })
    fc.assert(fc.property(named(Object.keys(InitQuery.fields)), query), { numRuns: 300 })
    fc.assert(fc.property(named([...Object.keys(InitHeaders.fields), "host", "user-agent"]), headers), { numRuns: 300 })
    query({ v: "3.1.0", contract: "1", journey: "x".repeat(129) })
    headers({ "accept-language": "de-DE,de;q=0.9", "sec-gpc": "1", host: "consent.example" })
    fc.assert(fc.property(fc.anything(), (value) => (query(value), headers(value))), { numRuns: 50 })
  })

  it("decodes rows read as arrays exactly as Effect decodes them as objects of their column names", () => {
    // The subject's columns, then the consent's in reverse, with one column neither schema names.
    const columns = [
      ...Object.keys(SubjectColumnsBeside.fields),
      "unnamed",
      ...Object.keys(ConsentRow.fields).reverse()
    ]
    const asObject = (row: ReadonlyArray<unknown>) => Object.fromEntries(columns.map((c, i) => [c, row[i]]))
    for (const schema of [ConsentRow, SubjectColumnsBeside] as ReadonlyArray<Schema.Schema<any, any>>) {
      const compiled = compileRowDecoder(schema, columns)
      const reference = Schema.decodeUnknownSync(schema)
      const check = (row: ReadonlyArray<unknown>): void => {
        expect(outcome((r) => compiled(r as ReadonlyArray<unknown>), row)).toEqual(
          outcome((r) => reference(asObject(r as ReadonlyArray<unknown>)), row)
        )
      }
      const rows = fc.tuple(encodedArbitrary(ConsentRow), encodedArbitrary(SubjectColumnsBeside), fc.anything()).map((
        [consent, subject, unnamed]
      ) => columns.map((c) => c === "unnamed" ? unnamed : { ...consent, ...subject }[c]))
      fc.assert(fc.property(rows, check), { numRuns: 150 })
      // a value of the wrong type, a row cut short, and no array at all: refused with Effect's error
      fc.assert(
        fc.property(rows, fc.nat(columns.length - 1), fc.anything(), (row, i, value) => {
          check(row.map((v, j) => (j === i ? value : v)))
          check(row.slice(0, i))
        }),
        { numRuns: 150 }
      )
      check([])
      expect(() => compiled({} as never)).toThrow()
    }
    // Under onExcessProperty "error", a column the struct does not declare refuses every row, as Effect does.
    const strict = Schema.Struct({ a: Schema.Number }).annotations({ parseOptions: { onExcessProperty: "error" } })
    expect(compileRowDecoder(strict, ["a"])([1])).toEqual({ a: 1 })
    expect(() => compileRowDecoder(strict, ["a", "b"])([1, 2])).toThrow(/is unexpected/)
    // A column missing from the list is a missing key: refused when required, left out when optional.
    const optional = Schema.Struct({ a: Schema.Number, b: Schema.optional(Schema.String) })
    expect(compileRowDecoder(optional, ["a"])([1])).toEqual({ a: 1 })
    expect(() => compileRowDecoder(optional, ["b"])(["x"])).toThrow(/is missing/)
  })

  it("refuses what a refinement or an excess-property rule refuses, with Effect's error", () => {
    const check = sameDecodeAsEffect(ConsentRecord)
    const valid = fc.sample(encodedArbitrary(ConsentRecord), { numRuns: 20, seed: 7 })
    for (const record of valid) {
      check(record)
      const badId = { ...record, consentId: "not-a-consent-id" }
      check(badId)
      expect(() => compileDecoder(ConsentRecord)(badId)).toThrow(/ConsentId|Expected/)
      check({ ...record, givenAt: "2025-02-30T00:00:00Z" }) // an impossible day: the transformation refuses it
      check({ ...record, preferences: { necessary: true, bogus: true } }) // Preferences refuses unknown keys
    }
  })

  it("decodes a Postgres row's BIGINT text to numbers, and refuses a row missing a column", () => {
    const row = {
      id: "cns_1",
      subject_id: "sub_1",
      act_digest: "d",
      type: "cookie_banner",
      domain: "shop.example",
      given_at: "1700000000000",
      created_at: 1700000000001,
      preferences: null,
      receipts: "{}",
      vendor_choice: null,
      policy_id: null,
      policy_fingerprint: null,
      runtime_policy_source: null,
      legal_release_id: null,
      journey_id: null,
      legal_version: null,
      legal_hash: null,
      legal_effective_date: null,
      gpc: null,
      gpp_string: null,
      gpp_section_ids: null,
      tc_string: null
    }
    const decoded = compileDecoder(ConsentRow)(row)
    expect(decoded.given_at).toBe(1700000000000)
    expect(decoded.created_at).toBe(1700000000001)
    const { domain: _domain, ...missing } = row
    expect(() => compileDecoder(ConsentRow)(missing)).toThrow(/domain/)
  })
})

describe("compiled response encoder", () => {
  const schemas = successSchemas()

  it("finds the contract's success schemas", () => {
    expect(schemas.length).toBeGreaterThan(15)
    expect(schemas.map((s) => s.label)).toContain("GET /subjects/:id 200")
  })

  for (const { label, schema } of schemas) {
    it(`encodes ${label} exactly as Effect does`, () => {
      const check = sameAsEffect(schema)
      fc.assert(fc.property(Arbitrary.make(schema), check), { numRuns: 80 })
      fc.assert(fc.property(fc.anything(), check), { numRuns: 25 })
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

  it("writes each time as Date's toISOString does: the years 0000 to 9999 itself, others through the schema", () => {
    const first = -62_167_219_200_000
    const last = 253_402_300_799_999
    expect(new Date(first).toISOString()).toBe("0000-01-01T00:00:00.000Z")
    expect(new Date(last).toISOString()).toBe("9999-12-31T23:59:59.999Z")
    const edges = [first, first - 1, last, last + 1, -1, 0, 1, Date.UTC(2000, 1, 29, 12), Date.UTC(1900, 2, 1),
      Date.UTC(2024, 11, 31, 23, 59, 59, 999), Date.UTC(2100, 1, 28, 23), 8.64e15, -8.64e15]
    const times = fc.oneof(
      fc.integer({ min: first, max: last }),
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.constantFrom(...edges)
    )
    fc.assert(
      fc.property(times, (ms) => {
        expect(isoDateString(ms)).toBe(ms >= first && ms <= last ? new Date(ms).toISOString() : undefined)
      }),
      { numRuns: 20_000 }
    )
    const date = sameAsEffect(Schema.Date)
    const lenient = sameAsEffect(Schema.DateFromString)
    const inStruct = sameAsEffect(Schema.Struct({ at: Schema.Date }))
    for (const ms of [...edges, Number.NaN]) {
      date(new Date(ms))
      lenient(new Date(ms))
      inStruct({ at: new Date(ms) })
    }
    fc.assert(fc.property(times, (ms) => (date(new Date(ms)), lenient(new Date(ms)))), { numRuns: 2_000 })
  })

  it("throws Effect's error for a value its schema refuses", () => {
    const check = sameAsEffect(ConsentRecord)
    const bad = { consentId: "not-a-consent-id", type: "cookie_banner" }
    check(bad)
    expect(() => compileEncoder(ConsentRecord)(bad as never)).toThrow(/ConsentId|Expected/)
    // a preference the schema does not know is refused (`onExcessProperty: "error"` on Preferences)
    for (const record of fc.sample(Arbitrary.make(ConsentRecord), { numRuns: 20, seed: 7 })) {
      check(record)
      check({ ...record, preferences: { necessary: true, bogus: true } })
      check({ ...record, givenAt: new Date(Number.NaN) }) // an invalid Date: Timestamp's filter refuses it
    }
  })
})
