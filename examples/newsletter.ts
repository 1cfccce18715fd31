import { createSvcClient } from "@svc/client"

const svc = createSvcClient({ baseUrl: process.env.SVC_URL!, apiKey: process.env.SVC_API_KEY })

export async function sendNewsletterIfAllowed(user: { id: string }, send: (user: { id: string }) => Promise<void>) {
  const check = await svc.consents.check({ externalId: user.id, types: ["privacy_policy"] })
  // a failed check must be treated as no consent
  if (check.ok && check.data.results.privacy_policy.hasConsent) await send(user)
}
