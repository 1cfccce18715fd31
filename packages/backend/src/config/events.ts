import type { SvcEventType } from "@svc/schema"
import { type Layer, Option, Schema } from "effect"
import type { EventSinks } from "./event-sinks.js"
import { DELIVERY_DEFAULTS, type EventsOptions, WebhookOptions } from "./schema.js"

export interface ResolvedWebhook {
  readonly id: string
  readonly url: string
  readonly secret: string
  readonly events: ReadonlyArray<SvcEventType> | undefined
}

export interface ResolvedEvents {
  readonly webhooks: ReadonlyArray<ResolvedWebhook>
  readonly nats: { readonly servers: ReadonlyArray<string>; readonly subject: string } | undefined
  readonly sinks: Layer.Layer<EventSinks, unknown> | undefined
  readonly delivery: {
    readonly enabled: boolean
    readonly pollIntervalMs: number
    readonly timeoutMs: number
    readonly leaseMs: number
    readonly batchSize: number
    readonly keepDeliveredMs: number
    readonly retry: { readonly baseDelayMs: number; readonly maxDelayMs: number; readonly giveUpAfterMs: number }
  }
}

const decodeId = Schema.decodeUnknownOption(WebhookOptions.pick("id"))

/** Ids written twice in `webhooks`, each named at its second use; read even when other fields are malformed. */
export const duplicateWebhookIds = (webhooks: unknown): Array<string> => {
  if (!Array.isArray(webhooks)) return []
  const seen = new Set<string>()
  const problems: Array<string> = []
  webhooks.forEach((raw: unknown, i) => {
    const id = Option.map(decodeId(raw), (w) => w.id)
    if (Option.isNone(id)) return
    if (seen.has(id.value)) problems.push(`webhooks[${i}].id: ${JSON.stringify(id.value)} is used twice`)
    seen.add(id.value)
  })
  return problems
}

/** `webhooks` and `events` (checked by the options schema) with their defaults. */
export const resolveEvents = (
  webhooks: ReadonlyArray<typeof WebhookOptions.Type> | undefined,
  events: typeof EventsOptions.Type | undefined
): ResolvedEvents => {
  const delivery = events?.delivery ?? {}
  const retry = delivery.retry ?? {}
  const nats = events?.nats
  return {
    webhooks: (webhooks ?? []).map(({ events, id, secret, url }) => ({ id, url, secret, events })),
    nats: nats && { servers: typeof nats.servers === "string" ? [nats.servers] : nats.servers, subject: nats.subject },
    sinks: events?.sinks,
    delivery: {
      enabled: delivery.enabled !== false,
      pollIntervalMs: delivery.pollIntervalMs ?? DELIVERY_DEFAULTS.pollIntervalMs,
      timeoutMs: delivery.timeoutMs ?? DELIVERY_DEFAULTS.timeoutMs,
      leaseMs: delivery.leaseMs ?? DELIVERY_DEFAULTS.leaseMs,
      batchSize: delivery.batchSize ?? DELIVERY_DEFAULTS.batchSize,
      keepDeliveredMs: delivery.keepDeliveredMs ?? DELIVERY_DEFAULTS.keepDeliveredMs,
      retry: {
        baseDelayMs: retry.baseDelayMs ?? DELIVERY_DEFAULTS.retry.baseDelayMs,
        maxDelayMs: retry.maxDelayMs ?? DELIVERY_DEFAULTS.retry.maxDelayMs,
        giveUpAfterMs: retry.giveUpAfterMs ?? DELIVERY_DEFAULTS.retry.giveUpAfterMs
      }
    }
  }
}
