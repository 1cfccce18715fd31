import { createIdentityToken, isSvcError, type SvcClient } from "@svc/client"

/**
 * After sign-in: link the visitor's subject (the browser sends its `sub_` id) to the user ID.
 * A client with an API key makes a verified link.
 */
export async function linkAfterSignIn(svc: SvcClient, subjectId: string, userId: string) {
  const result = await svc.subjects.identify(subjectId, { externalId: userId, identityProvider: "auth0" })
  if (result.ok) return { linked: true as const, verified: result.data.subject.verified }
  if (isSvcError(result.error, "NOT_FOUND")) return { linked: false as const, why: "no consent saved yet" }
  if (isSvcError(result.error, "IDENTITY_CONFLICT")) return { linked: false as const, why: "linked to someone else" }
  return { linked: false as const, why: result.error.code }
}

/** Or let the browser make the link itself: hand it a short-lived identity token. */
export const identityTokenFor = (userId: string, signingKey: string) =>
  createIdentityToken({ externalId: userId, identityProvider: "auth0" }, { signingKey, ttlSeconds: 600 })
