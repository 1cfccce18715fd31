import { describe, expectTypeOf, it } from "vitest"
import {
  createSvcClient,
  isSvcError,
  type SvcClient,
  type SvcDataOf,
  SvcError,
  type SvcErrorCodeOf,
  type SvcPublicClient,
  type SvcResult,
  unwrap
} from "../src/index.js"
import { createMockSvcClient, err, ok } from "../src/testing.js"

/*
 * Type-level tests: checked by `npm run typecheck` (`tsconfig.test.json` takes every package's
 * tests), which CI runs; a wrong type or an unused `@ts-expect-error` fails it. The runtime bodies
 * only build clients, they send nothing.
 */

type ClientCode = "INVALID_INPUT" | "NETWORK_ERROR" | "TIMEOUT" | "ABORTED" | "UNEXPECTED_RESPONSE"
type SharedBackendCode =
  | "INVALID_REQUEST"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "DATABASE_ERROR"
  | "INTERNAL_ERROR"

const keyed = createSvcClient({ baseUrl: "https://consent.example.com", apiKey: "k" })
const keyless = createSvcClient({ baseUrl: "https://consent.example.com" })

describe("client shape by options", () => {
  it("a client without apiKey has no key-only methods", () => {
    expectTypeOf(keyless).toEqualTypeOf<SvcPublicClient>()
    expectTypeOf(keyless).not.toHaveProperty("consents")
    expectTypeOf(keyless).not.toHaveProperty("legalDocuments")
    expectTypeOf(keyless).not.toHaveProperty("experiments")
    expectTypeOf(keyless.subjects).not.toHaveProperty("list")
    expectTypeOf(keyless.subjects).toHaveProperty("identify")
  })

  it("a client with apiKey (or a key that may be undefined) has every method", () => {
    expectTypeOf(keyed).toEqualTypeOf<SvcClient>()
    const maybe = createSvcClient({ baseUrl: "https://x.example", apiKey: undefined as string | undefined })
    expectTypeOf(maybe).toEqualTypeOf<SvcClient>()
    const explicitNone = createSvcClient({ baseUrl: "https://x.example", apiKey: undefined })
    expectTypeOf(explicitNone).toEqualTypeOf<SvcPublicClient>()
  })
})

describe("backend codes are typed per method", () => {
  it("subjects.get can fail with NOT_FOUND or DATABASE_ERROR (and the shared codes), not MISSING_API_KEY", () => {
    expectTypeOf<SvcErrorCodeOf<SvcClient["subjects"]["get"]>>().toEqualTypeOf<
      "NOT_FOUND" | SharedBackendCode | ClientCode
    >()
  })

  it("key-only methods can return UNAUTHORIZED and MISSING_API_KEY", () => {
    expectTypeOf<SvcErrorCodeOf<SvcClient["subjects"]["list"]>>().toEqualTypeOf<
      "UNAUTHORIZED" | "MISSING_API_KEY" | "RATE_LIMITED" | SharedBackendCode | ClientCode
    >()
    expectTypeOf<"UNAUTHORIZED" | "MISSING_API_KEY">().toExtend<SvcErrorCodeOf<SvcClient["consents"]["check"]>>()
    expectTypeOf<"UNAUTHORIZED" | "MISSING_API_KEY">().toExtend<SvcErrorCodeOf<SvcClient["experiments"]["summary"]>>()
    expectTypeOf<"UNAUTHORIZED" | "MISSING_API_KEY" | "CONFLICT">().toExtend<
      SvcErrorCodeOf<SvcClient["legalDocuments"]["publish"]>
    >()
  })

  it("the save and link codes", () => {
    expectTypeOf<SvcErrorCodeOf<SvcClient["subjects"]["create"]>>().toEqualTypeOf<
      | "CONFLICT"
      | "SUBJECT_CONFLICT"
      | "POLICY_SNAPSHOT_EXPIRED"
      | "POLICY_SNAPSHOT_INVALID"
      | "STALE_POLICY"
      | "RATE_LIMITED"
      | SharedBackendCode
      | ClientCode
    >()
    expectTypeOf<SvcErrorCodeOf<SvcClient["subjects"]["identify"]>>().toEqualTypeOf<
      | "NOT_FOUND"
      | "IDENTITY_TOKEN_INVALID"
      | "IDENTITY_CONFLICT"
      | "UNAUTHORIZED"
      | "RATE_LIMITED"
      | SharedBackendCode
      | ClientCode
    >()
    expectTypeOf<SvcErrorCodeOf<SvcClient["status"]>>().toEqualTypeOf<SharedBackendCode | ClientCode>()
  })

  it("narrowing a result by ok, then by code", () => {
    // Never run: only type-checked, so nothing is sent.
    const narrowing = async (client: SvcClient) => {
      const result = await client.subjects.get("sub_12345678")
      if (result.ok) {
        expectTypeOf(result.data.subject.createdAt).toEqualTypeOf<Date>()
        return
      }
      expectTypeOf(result.error).toEqualTypeOf<SvcError<SvcErrorCodeOf<SvcClient["subjects"]["get"]>>>()
      if (result.error.code === "NOT_FOUND") expectTypeOf(result.error.code).toEqualTypeOf<"NOT_FOUND">()
      if (isSvcError(result.error, "NOT_FOUND", "TIMEOUT")) {
        expectTypeOf(result.error.code).toEqualTypeOf<"NOT_FOUND" | "TIMEOUT">()
      }
      // @ts-expect-error: CONFLICT is not a code subjects.get can return
      isSvcError(result.error, "CONFLICT")
      const unknownError: unknown = result.error
      if (isSvcError(unknownError, "STALE_POLICY")) expectTypeOf(unknownError.code).toEqualTypeOf<"STALE_POLICY">()
      if (isSvcError(unknownError)) expectTypeOf(unknownError).toEqualTypeOf<SvcError>()
    }
    expectTypeOf(narrowing).toBeFunction()
  })
})

describe("data types", () => {
  it("dates are Date; manifest is a modified / not-modified union", async () => {
    expectTypeOf<SvcDataOf<SvcClient["status"]>["timestamp"]>().toEqualTypeOf<Date>()
    expectTypeOf<SvcDataOf<SvcClient["subjects"]["create"]>["givenAt"]>().toEqualTypeOf<Date>()
    expectTypeOf<SvcDataOf<SvcClient["legalDocuments"]["publish"]>["policy"]["effectiveDate"]>().toEqualTypeOf<Date>()
    expectTypeOf<SvcDataOf<SvcClient["experiments"]["summary"]>["from"]>().toEqualTypeOf<string | null>()
    type Manifest = SvcDataOf<SvcClient["manifest"]>
    expectTypeOf<Manifest["status"]>().toEqualTypeOf<"modified" | "not-modified">()
    const data = {} as Manifest
    if (data.status === "modified") expectTypeOf(data.manifest.revision).toEqualTypeOf<string>()
    else expectTypeOf(data).not.toHaveProperty("manifest")
  })

  it("consents.check results are keyed by the requested types", () => {
    const check = () => keyed.consents.check({ externalId: "u", types: ["privacy_policy", "cookie_banner"] })
    expectTypeOf<SvcDataOf<typeof check>["results"]>().toEqualTypeOf<{
      readonly privacy_policy: { readonly hasConsent: boolean; readonly isLatestPolicy: boolean }
      readonly cookie_banner: { readonly hasConsent: boolean; readonly isLatestPolicy: boolean }
    }>()
    const dynamic = (types: Array<string>) => keyed.consents.check({ externalId: "u", types })
    expectTypeOf<SvcDataOf<typeof dynamic>["results"]>().toEqualTypeOf<{
      readonly [x: string]: { readonly hasConsent: boolean; readonly isLatestPolicy: boolean }
    }>()
  })

  it("unwrap returns data; SvcDataOf accepts a result type too", () => {
    type GetResult = Awaited<ReturnType<SvcClient["subjects"]["get"]>>
    expectTypeOf<SvcDataOf<GetResult>>().toEqualTypeOf<SvcDataOf<SvcClient["subjects"]["get"]>>()
    const result = ok(1) as SvcResult<number, "TIMEOUT">
    expectTypeOf(unwrap(result)).toEqualTypeOf<number>()
    expectTypeOf(unwrap(Promise.resolve(result))).toEqualTypeOf<Promise<number>>()
  })

  it("argument types are checked", () => {
    // @ts-expect-error: types is required
    void (() => keyed.consents.check({ externalId: "u" }))
    // @ts-expect-error: givenAt is a Date or epoch ms
    void (() => keyed.subjects.create({ type: "dpa", domain: "d", subjectId: "sub_12345678", givenAt: "now" }))
    // @ts-expect-error: call options are typed
    void (() => keyed.status({ timeout: 5 }))
  })
})

describe("testing helpers are typed against the client", () => {
  it("handlers must return the method's result type", () => {
    createMockSvcClient({
      subjects: { get: () => err("NOT_FOUND") },
      experiments: { summary: () => err("UNAUTHORIZED") }
    })
    createMockSvcClient({
      // @ts-expect-error: CONFLICT is not a code subjects.get can return
      subjects: { get: () => err("CONFLICT") }
    })
    createMockSvcClient({
      // @ts-expect-error: the data must have the method's shape
      status: () => ok({ nope: true })
    })
  })
})
