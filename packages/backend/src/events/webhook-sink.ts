import type { SvcEventType } from "@svc/schema"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { propertyOf } from "../codec/guards.js"
import type { ResolvedWebhook } from "../config/events.js"
import {
  Delivered,
  type DeliveryOutcome,
  EndpointGone,
  type EventSink,
  type OutgoingEvent,
  RetryLater
} from "../config/event-sinks.js"

/** `Retry-After` as milliseconds from now: delta seconds or an HTTP date; `undefined` when absent or unreadable. */
export const retryAfterMs = (header: string | null, now: number): number | undefined => {
  if (header === null || header.trim() === "") return undefined
  const trimmed = header.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** What a receiver's answer means for the delivery. */
const outcomeOf = (response: Response, now: number): DeliveryOutcome => {
  const status = response.status
  if (status >= 200 && status < 300) return new Delivered({ status })
  if (status === 410) return new EndpointGone({ status, reason: "the endpoint answered 410 Gone" })
  const after = retryAfterMs(response.headers.get("retry-after"), now)
  return new RetryLater({
    status,
    reason: `the endpoint answered ${status}`,
    ...(after === undefined ? {} : { retryAfterMs: after })
  })
}

/** Why a request failed, without its URL (which may carry a token) or anything about the secret. */
const describeFailure = (error: unknown, timeoutMs: number): string => {
  const name = propertyOf(error, "name")
  if (name === "TimeoutError" || name === "AbortError") return `no answer within ${timeoutMs} ms`
  const code = propertyOf(propertyOf(error, "cause"), "code")
  return typeof code === "string" ? `request failed: ${code}` : "request failed"
}

/**
 * A webhook endpoint as a sink: POSTs the event JSON signed per Standard Webhooks (`webhook-id`
 * is the event id, stable across retries; `webhook-timestamp` the attempt's time;
 * `webhook-signature` `v1,<base64 HMAC-SHA256>` by the `standardwebhooks` package). Redirects are
 * not followed: a 3xx is retried like any other non-2xx.
 */
export const webhookSink = (endpoint: ResolvedWebhook, timeoutMs: number): EventSink => {
  const signer = new Webhook(endpoint.secret)
  const types = endpoint.events === undefined ? undefined : new Set<SvcEventType>(endpoint.events)
  return {
    id: endpoint.id,
    accepts: (type) => types === undefined || types.has(type),
    deliver: (event: OutgoingEvent) =>
      Effect.gen(function*() {
        const sentAt = new Date()
        const signature = signer.sign(event.id, sentAt, event.body)
        const result = yield* Effect.either(Effect.tryPromise(async () => {
          const response = await fetch(endpoint.url, {
            method: "POST",
            redirect: "manual",
            signal: AbortSignal.timeout(timeoutMs),
            headers: {
              "content-type": "application/json",
              "user-agent": "svc-webhooks",
              "webhook-id": event.id,
              "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
              "webhook-signature": signature
            },
            body: event.body
          })
          // The body is not read; drain it so the connection can be reused.
          await response.body?.cancel().catch(() => undefined)
          return response
        }))
        if (result._tag === "Left") return new RetryLater({ reason: describeFailure(result.left.error, timeoutMs) })
        return outcomeOf(result.right, Date.now())
      })
  }
}
