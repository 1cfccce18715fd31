import { createSvcClient, type SvcClient } from "@svc/client"

/** Server start-up: one client for the process. The key stays on the server. */
export const makeSvc = (baseUrl: string, apiKey: string): SvcClient =>
  createSvcClient({ baseUrl, apiKey, timeoutMs: 3000 })

/** Before sending a newsletter: has this user accepted the newsletter terms, in their latest version? */
export async function mayEmail(svc: SvcClient, userId: string): Promise<boolean> {
  const result = await svc.consents.check({
    externalId: userId,
    types: ["terms_and_conditions_newsletter"]
  })
  if (!result.ok) {
    // A failed check must be treated as no consent. Log the code and request id, never the key.
    console.warn("consent check failed", result.error.code, result.error.requestId)
    return false
  }
  const { hasConsent, isLatestPolicy } = result.data.results.terms_and_conditions_newsletter
  return hasConsent && isLatestPolicy
}
