import { createMockSvcClient, err, ok } from "@svc/client/testing"
import { expect, it } from "vitest"
import { mayEmail } from "./check-consent.js"

it("emails only with consent, and never when the check fails", async () => {
  const accepted = createMockSvcClient({
    consents: {
      check: () => ok({ results: { terms_and_conditions_newsletter: { hasConsent: true, isLatestPolicy: true } } })
    }
  })
  expect(await mayEmail(accepted, "user-1")).toBe(true)

  const down = createMockSvcClient({ consents: { check: () => err("NETWORK_ERROR") } })
  expect(await mayEmail(down, "user-1")).toBe(false)
})
