import type { SvcEventEncoded } from "@svc/schema"
import { Webhook } from "standardwebhooks"

/** Request headers as a web `Headers`, or a plain object (Node's `IncomingHttpHeaders`, Express' `req.headers`). */
export type WebhookHeaders = Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

export type VerifiedWebhook =
  | { readonly ok: true; readonly event: SvcEventEncoded }
  | { readonly ok: false; readonly reason: string }

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  const record = headers as Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  const key = Object.keys(record).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : record[key]
  return typeof value === "string" ? value : value?.[0]
}

/**
 * Checks a webhook svc sent (Standard Webhooks: `webhook-id`, `webhook-timestamp` within five
 * minutes, `webhook-signature` HMAC-SHA256 of the raw body with `secret`, the `whsec_…` value
 * configured for the endpoint) and returns the event. Pass the body exactly as received (the raw
 * text or bytes, not re-serialized JSON). Never throws. The same `event.id` may arrive more than
 * once (delivery is at least once): deduplicate on it.
 */
export const verifyWebhook = (body: string | Uint8Array, headers: WebhookHeaders, secret: string): VerifiedWebhook => {
  const id = header(headers, "webhook-id")
  const timestamp = header(headers, "webhook-timestamp")
  const signature = header(headers, "webhook-signature")
  if (id === undefined || timestamp === undefined || signature === undefined) {
    return { ok: false, reason: "missing webhook-id, webhook-timestamp or webhook-signature header" }
  }
  try {
    const text = typeof body === "string" ? body : new TextDecoder().decode(body)
    const event = new Webhook(secret).verify(text, {
      "webhook-id": id,
      "webhook-timestamp": timestamp,
      "webhook-signature": signature
    }) as SvcEventEncoded
    if (typeof event !== "object" || event === null || event.id !== id) {
      return { ok: false, reason: "the body is not the event the webhook-id names" }
    }
    return { ok: true, event }
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : "the signature does not verify" }
  }
}
