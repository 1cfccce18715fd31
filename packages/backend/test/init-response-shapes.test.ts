// Every kind of `/init` answer decodes against the contract's `InitResponse` (from @svc/schema,
// the schema @svc/api's `policy.init` endpoint declares), strictly: a field the contract does not
// name is an error too. Matched (with a snapshot token and Consent Mode), failed for each reason,
// no-match, unconfigured, and an IAB policy carrying the GVL.
import { InitResponse } from "@svc/schema"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { GVL_FIXTURE, manifest } from "./support/policy-manifest.js"
import { type TestServer, useServer } from "./support/server.js"

const decode = Schema.decodeUnknownSync(InitResponse, { onExcessProperty: "error", errors: "all" })

const SIGNING_KEY = "init-shapes-signing-key-0123456789abcdef"

describe("GET /init answers decode as InitResponse", () => {
  const full = useServer("sqlite", {
    manifest: {
      ...manifest,
      consentMode: { mapping: { analytics_storage: "measurement", ad_storage: "marketing" } }
    },
    gvl: { file: GVL_FIXTURE },
    policySnapshot: { signingKey: SIGNING_KEY }
  })
  const strict = useServer("sqlite", {
    manifest: { policyRules: [{ id: "eu", match: { countries: ["DE"] }, model: "opt-in", categories: ["marketing"] }] }
  })
  const empty = useServer("sqlite", {})

  const answer = async (server: TestServer, query: string, headers: Record<string, string> = {}) => {
    const response = await server.fetch(`/init${query}`, { headers })
    expect(response.status).toBe(200)
    return decode(await response.json())
  }

  it("matched, with a policy, a snapshot token and the Consent Mode mapping", async () => {
    const body = await answer(full, "?country=DE&journey=jrn_1")
    expect(body.policyResolution).toMatchObject({ status: "matched", policyId: "eu", matchedBy: "country" })
    expect(body.policy?.id).toBe("eu")
    expect(typeof body.policySnapshotToken).toBe("string")
    expect(body.consentMode).toBeDefined()
    expect(body.gvl).toBeUndefined()
  })

  it("IAB, carrying the GVL", async () => {
    const body = await answer(full, "?country=FR")
    expect(body.policyResolution).toMatchObject({ status: "matched", model: "iab" })
    expect(body.gvl?.vendorListVersion).toBe(120)
    expect(body.iab).not.toBeNull()
  })

  it("failed: unsupported contract (query and header) and insufficient inputs", async () => {
    for (const [query, headers] of [["?country=DE&contract=2", {}], ["?country=DE", {
      "x-svc-policy-contract": "2"
    }]] as const) {
      const body = await answer(full, query, headers)
      expect(body.policyResolution, query).toMatchObject({ status: "failed", reason: "unsupported-contract" })
      expect(body.policy).toBeNull()
    }
    const unknown = await answer(strict, "")
    expect(unknown.policyResolution).toMatchObject({ status: "failed", reason: "insufficient-inputs" })
  })

  it("no-match", async () => {
    const body = await answer(strict, "?country=JP")
    expect(body.policyResolution).toMatchObject({ status: "no-match", policyId: null })
    expect(body.policy).toBeNull()
  })

  it("unconfigured", async () => {
    const body = await answer(empty, "?country=DE")
    expect(body.policyResolution).toMatchObject({ status: "unconfigured", reason: null })
  })

  it("the strict decoder does refuse a field the contract does not name", async () => {
    const response = await (await empty.fetch("/init?country=DE")).json()
    expect(() => decode({ ...response, extra: 1 })).toThrow(/extra/)
  })
})
