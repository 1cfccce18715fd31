import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createMockSvcClient, err, ok } from "../src/testing.js"
import { makeSvc, mayEmail } from "../examples/check-consent.js"
import { identityTokenFor, linkAfterSignIn } from "../examples/link-after-sign-in.js"
import { publishPrivacyPolicy } from "../examples/publish-from-ci.js"
import { publishBody, subjectId } from "./support/fixtures.js"
import { type FakeServer, reply, startFakeServer } from "./support/fake-server.js"

/* The README's examples (packages/client/examples) run here, so they stay runnable. */

let server: FakeServer
beforeAll(async () => {
  server = await startFakeServer()
})
afterAll(() => server.close())
beforeEach(() => server.reset())

describe("README examples", () => {
  it("check consent before an email (and the mock in a user's own test)", async () => {
    const accepted = createMockSvcClient({
      consents: {
        check: () => ok({ results: { terms_and_conditions_newsletter: { hasConsent: true, isLatestPolicy: true } } })
      }
    })
    expect(await mayEmail(accepted, "user-1")).toBe(true)
    const down = createMockSvcClient({ consents: { check: () => err("NETWORK_ERROR") } })
    expect(await mayEmail(down, "user-1")).toBe(false)
    server.handle(
      reply(200, { results: { terms_and_conditions_newsletter: { hasConsent: true, isLatestPolicy: false } } })
    )
    expect(await mayEmail(makeSvc(server.origin, "key"), "user-1")).toBe(false)
    expect(server.requests[0]!.url).toBe("/consents/check?externalId=user-1&type=terms_and_conditions_newsletter")
  })

  it("link after sign-in", async () => {
    const svc = createMockSvcClient({
      subjects: {
        identify: (id, input) =>
          id === subjectId
            ? ok({ subject: { id, externalId: input.externalId, identityProvider: "auth0", verified: true } })
            : err("NOT_FOUND")
      }
    })
    expect(await linkAfterSignIn(svc, subjectId, "user-1")).toEqual({ linked: true, verified: true })
    expect(await linkAfterSignIn(svc, "sub_otherxxxxx", "user-1")).toEqual({
      linked: false,
      why: "no consent saved yet"
    })
    expect((await identityTokenFor("user-1", "k".repeat(32))).split(".")).toHaveLength(3)
  })

  it("publish a legal document from CI", async () => {
    server.handle(reply(200, publishBody))
    const policy = await publishPrivacyPolicy({
      baseUrl: server.origin,
      apiKey: "ci-key",
      text: "We process...",
      version: "2026-02",
      effectiveDate: "2026-02-01"
    })
    expect(policy.id).toBe("pol_1")
    expect(JSON.parse(server.requests[0]!.body)).toMatchObject({
      version: "2026-02",
      effectiveDate: "2026-02-01T00:00:00.000Z"
    })
    server.handle(reply(409, { message: "hash already published with another version", cause: { code: "CONFLICT" } }))
    await expect(publishPrivacyPolicy({
      baseUrl: server.origin,
      apiKey: "ci-key",
      text: "We process...",
      version: "2026-03",
      effectiveDate: "2026-02-01"
    })).rejects.toMatchObject({ code: "CONFLICT" })
  })
})
