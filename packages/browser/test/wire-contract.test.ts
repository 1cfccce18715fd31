// The browser's wire shapes checked against @svc/schema, the contract the backend decodes with.
import { LinkIdentityRequest, SaveConsentRequest } from "@svc/schema"
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { buildSaveBody } from "../src/runtime/save-request.js"

const decodes = <A, I>(schema: Schema.Schema<A, I>, value: unknown) => {
  const result = Schema.decodeUnknownEither(schema)(value)
  if (Either.isLeft(result)) throw new Error(String(result.left))
  return result.right
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
    const decoded = decodes(SaveConsentRequest, JSON.parse(JSON.stringify(body)))
    expect(decoded.type).toBe("cookie_banner")
    expect(decoded.givenAt).toBeInstanceOf(Date)
    expect(decoded.receipts?.marketing?.value).toBe(false)
  })

  it("an identify body decodes as LinkIdentityRequest", () => {
    expect(decodes(LinkIdentityRequest, { externalId: "user-1", identityToken: "jwt" }).externalId).toBe("user-1")
  })
})
