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

// A `Headers` from any realm or polyfill: what it has that a plain header object has not is `get`.
const isHeaders = (headers: WebhookHeaders): headers is Headers => typeof headers["get"] === "function"

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (isHeaders(headers)) return headers.get(name) ?? undefined
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : headers[key]
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
    const event: unknown = new Webhook(secret).verify(text, {
      "webhook-id": id,
      "webhook-timestamp": timestamp,
      "webhook-signature": signature
    })
    if (typeof event !== "object" || event === null || !("id" in event) || event.id !== id) {
      return { ok: false, reason: "the body is not the event the webhook-id names" }
    }
    // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the signature proves svc sent this body, so it is svc's event; it is not decoded again, so an event type added by a newer svc still reaches an older receiver
    return { ok: true, event: event as SvcEventEncoded }
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : "the signature does not verify" }
  }
}
