import type { SvcEventEncoded } from "@svc/schema"
import { Webhook } from "standardwebhooks"

/**
 * Request headers as a web `Headers`, or a plain object (Node's `IncomingHttpHeaders`, Express' `req.headers`).
 *
 * @example
 * ```ts
 * import { verifyWebhook, type WebhookHeaders } from "@svc/client"
 * import type { IncomingMessage } from "node:http"
 *
 * // A node:http receiver passes its headers object as it is.
 * const checkDelivery = (request: IncomingMessage, rawBody: Buffer) => {
 *   const headers: WebhookHeaders = request.headers
 *   return verifyWebhook(rawBody, headers, process.env.SVC_WEBHOOK_SECRET ?? "")
 * }
 * ```
 */
export type WebhookHeaders = Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/**
 * What `verifyWebhook` returns: the event when the signature holds, else the reason it does not.
 *
 * @example
 * ```ts
 * import type { VerifiedWebhook } from "@svc/client"
 *
 * // The receiver's answer: 401 for a bad signature (svc retries), 204 once the event is handled.
 * const answer = (verified: VerifiedWebhook, handle: (type: string) => void) => {
 *   if (!verified.ok) return new Response(verified.reason, { status: 401 })
 *   handle(verified.event.type)
 *   return new Response(null, { status: 204 })
 * }
 * ```
 */
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
 *
 * @example
 * ```ts
 * import { verifyWebhook } from "@svc/client"
 *
 * // A fetch-style route handler (Next.js, Hono, Workers) keeping the CRM's consent flags current.
 * const seen = new Set<string>()
 * export async function POST(request: Request): Promise<Response> {
 *   const verified = verifyWebhook(await request.text(), request.headers, process.env.SVC_WEBHOOK_SECRET ?? "")
 *   if (!verified.ok) return new Response(verified.reason, { status: 401 })
 *   if (seen.has(verified.event.id)) return new Response(null, { status: 204 }) // a redelivery
 *   seen.add(verified.event.id)
 *   if (verified.event.type === "consent.withdrawn") console.log("stop marketing for", verified.event.data)
 *   return new Response(null, { status: 204 })
 * }
 * ```
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
