// The browser's wire shapes checked against @svc/schema, the contract the backend decodes with.
import { InitQuery } from "@svc/api"
import { ConsentAction, InitResponse, LinkIdentityRequest, OptionalCategories, SaveConsentRequest } from "@svc/schema"
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { initBody } from "../../client/test/support/fixtures.js"
import { initURL } from "../src/runtime/init-request.js"
import { deriveState, isMatched, shouldPrompt } from "../src/runtime/policy.js"
import { buildSaveBody, type SaveBody } from "../src/runtime/save-request.js"
import { ACTIONS, CATEGORIES, type InitResponse as BrowserInit } from "../src/runtime/types.js"

/**
 * Every `/init` answer the contract allows is one the browser's type reads: this compiles only
 * while that holds (`npm run typecheck` checks the tests), and the tests below run real answers
 * through it. Except `gvl`: the contract checks a vendor's `id` and `name` and passes the rest of
 * the IAB list through, whose fields the browser reads as the IAB publishes them.
 */
const asRead = ({ gvl: _, ...wire }: typeof InitResponse.Encoded): BrowserInit => wire

/** Every save body the browser builds is a request the contract accepts, by type (and below, by decoding). */
const asSent = (body: SaveBody): typeof SaveConsentRequest.Encoded => body

const decodes = <A, I>(schema: Schema.Schema<A, I>, value: unknown) => {
  const result = Schema.decodeUnknownEither(schema)(value)
  if (Either.isLeft(result)) throw new Error(String(result.left))
  return result.right
}

/** An answer as the backend writes it: the client tests' matched `/init` answer, changed, that the contract decodes. */
const answer = (over: Partial<typeof InitResponse.Encoded>): BrowserInit => {
  const wire = { ...initBody, ...over }
  decodes(InitResponse, wire)
  return asRead(wire)
}

describe("wire contract", () => {
  it("a save body decodes as SaveConsentRequest", () => {
    const body = buildSaveBody({
      domain: "shop.example.com",
      subjectId: "sub_" + "a".repeat(32),
      givenAt: Date.now(),
      preferences: { necessary: true, measurement: true, marketing: false, functionality: false, experience: true },
      offered: ["measurement", "marketing", "experience"],
      vendors: { "755": true, analytics: false },
      policySnapshotToken: "token",
      journey: { id: "jrn_x", scope: "page", stored: "0" },
      experiment: { id: "hero", arm: "b" },
      action: "custom",
      surface: "widget",
      shownAt: Date.now() - 1500,
      identity: { externalId: "user-1", identityToken: "jwt" }
    })
    const decoded = decodes(SaveConsentRequest, JSON.parse(JSON.stringify(asSent(body))))
    expect(decoded.type).toBe("cookie_banner")
    expect(decoded.givenAt).toBeInstanceOf(Date)
    expect(decoded.receipts?.marketing?.value).toBe(false)
  })

  it("an identify body decodes as LinkIdentityRequest", () => {
    expect(decodes(LinkIdentityRequest, { externalId: "user-1", identityToken: "jwt" }).externalId).toBe("user-1")
  })

  it("the /init query the browser builds decodes as the contract's InitQuery, unknown names refused", () => {
    const url = initURL(
      "https://consent.example",
      { country: "DE", region: "BY", experiment: { id: "hero test", arm: "b" } },
      { version: "3.0.0", gpc: true, journey: { id: "jrn_1", scope: "page", stored: "1" } }
    )
    const query = Object.fromEntries(new URL(url).searchParams)
    expect(Object.keys(query).sort()).toEqual(["contract", "country", "experiment", "gpc", "journey", "journeyScope",
      "region", "stored", "v"])
    const decoded = Schema.decodeUnknownEither(InitQuery, { onExcessProperty: "error" })(query)
    if (Either.isLeft(decoded)) throw new Error(String(decoded.left))
    expect(decoded.right).toMatchObject({
      v: "3.0.0",
      contract: "1",
      country: "DE",
      region: "BY",
      gpc: "1",
      journey: "jrn_1"
    })
  })

  it("reads every /init status the contract encodes: matched prompts, the others leave the visitor unresolved", () => {
    const matched = answer({})
    expect(isMatched(matched)).toBe(true)
    const state = deriveState(matched, undefined, false, Date.now())
    expect(state).toMatchObject({ status: "pending", policyId: "eu", fingerprint: "fp-eu", model: "opt-in" })
    expect(shouldPrompt(matched, state)).toBe(true)
    for (const [status, reason] of [["no-match", null], ["unconfigured", null], ["failed",
      "insufficient-inputs"]] as const)
    {
      const other = answer({
        policyResolution: { status, reason, matchedBy: null, policyId: null, fingerprint: null, model: null },
        policy: null,
        location: { country: null, region: null }
      })
      expect(isMatched(other)).toBe(false)
      expect(deriveState(other, undefined, false, Date.now()).status).toBe("unresolved")
    }
  })

  it("keeps the browser's categories and actions inside the contract's", () => {
    expect(CATEGORIES).toEqual(OptionalCategories)
    expect([...ACTIONS, "unknown"].sort()).toEqual([...ConsentAction.literals].sort())
  })
})
