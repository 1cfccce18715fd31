import type { SvcEventType } from "@svc/schema"
import type { Layer } from "effect"
import type { EventSinks } from "../events/sinks.js"

/** One webhook endpoint (DESIGN.md): events are POSTed to `url`, signed with `secret` (Standard Webhooks). */
export interface WebhookOptions {
  /** Names the endpoint in `/events/deliveries` and `/status`: `[A-Za-z0-9_.-]{1,64}`. */
  readonly id: string
  /** `https:`; `http:` only for loopback receivers (localhost, 127.0.0.1, [::1]). */
  readonly url: string
  /** `whsec_` followed by base64 of at least 32 random bytes. Never logged. */
  readonly secret: string
  /** Event types sent to this endpoint; all when omitted. */
  readonly events?: ReadonlyArray<SvcEventType>
}

export interface EventRetryOptions {
  /** First retry window; each later one doubles (full jitter: a random delay inside the window). Default 5000. */
  readonly baseDelayMs?: number
  /** Largest retry window. Default 6 hours. */
  readonly maxDelayMs?: number
  /** A delivery still failing this long after its event is marked `failed`. Default 3 days. */
  readonly giveUpAfterMs?: number
}

export interface EventsOptions {
  /** NATS JetStream: each event is published to `subject` and counts as delivered once the stream acknowledges it. */
  readonly nats?: { readonly servers: string | ReadonlyArray<string>; readonly subject: string }
  /** Further sinks (Kafka, Redis Streams…) as a layer of `EventSinks`; they receive every event. */
  readonly sinks?: Layer.Layer<EventSinks, unknown>
  readonly delivery?: {
    /** `false`: this instance writes events but never delivers them (another replica does). Default `true`. */
    readonly enabled?: boolean
    /** How often an idle deliverer looks for due events. Default 250. */
    readonly pollIntervalMs?: number
    /** One webhook request's deadline. Default 10000. */
    readonly timeoutMs?: number
    /** How long a claimed delivery is held before another replica may take it. Default 60000. */
    readonly leaseMs?: number
    /** Deliveries claimed per round. Default 50. */
    readonly batchSize?: number
    /** How long delivered events stay listed before they are deleted. Default 1 day. */
    readonly keepDeliveredMs?: number
    readonly retry?: EventRetryOptions
  }
}

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

export const EVENT_TYPES: ReadonlyArray<SvcEventType> = [
  "consent.recorded",
  "consent.withdrawn",
  "subject.linked",
  "subject.erased",
  "legal_document.published"
]

const MIN_SECRET_BYTES = 32
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"])
const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Why a webhook URL is refused, if it is (DESIGN.md: https, or http on a loopback host). */
const urlProblem = (url: string): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "must be an absolute URL"
  }
  if (parsed.protocol === "https:") return undefined
  if (parsed.protocol === "http:" && LOOPBACK.has(parsed.hostname)) return undefined
  return "must use https: (http: only for localhost, 127.0.0.1 or [::1])"
}

/** A Standard Webhooks secret: `whsec_` + base64 of at least 32 bytes. The value is never quoted. */
const secretProblem = (secret: string): string | undefined => {
  if (!secret.startsWith("whsec_")) return "must be whsec_ followed by base64 (Standard Webhooks form)"
  const body = secret.slice("whsec_".length)
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return "must be whsec_ followed by base64 (Standard Webhooks form)"
  if (Buffer.from(body, "base64").length < MIN_SECRET_BYTES) return `must encode at least ${MIN_SECRET_BYTES} bytes`
  return undefined
}

const positive = (value: unknown, path: string, fallback: number, problems: Array<string>): number => {
  if (value === undefined) return fallback
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value
  problems.push(`${path}: must be a positive integer`)
  return fallback
}

/**
 * `webhooks` and `events` with their defaults. The schema checks field types; this checks URLs,
 * secrets (never repeating one), ids and event names. Problems go to `problems`.
 */
export const resolveEvents = (options: Record<string, unknown>, problems: Array<string>): ResolvedEvents => {
  const webhooks: Array<ResolvedWebhook> = []
  const seen = new Set<string>()
  const input = Array.isArray(options.webhooks) ? options.webhooks : []
  input.forEach((raw: unknown, i) => {
    if (!isRecord(raw)) return
    const { id, url, secret, events } = raw
    let ok = true
    const fail = (message: string) => {
      ok = false
      problems.push(`webhooks[${i}].${message}`)
    }
    if (typeof id !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(id)) fail("id: must match [A-Za-z0-9_.-]{1,64}")
    else if (seen.has(id) || id === "nats") fail(`id: ${JSON.stringify(id)} is used twice (or is the reserved "nats")`)
    else seen.add(id)
    if (typeof url === "string") {
      const problem = urlProblem(url)
      if (problem !== undefined) fail(`url: ${problem}`)
    } else ok = false
    if (typeof secret === "string") {
      const problem = secretProblem(secret)
      if (problem !== undefined) fail(`secret: ${problem}`)
    } else ok = false
    if (events !== undefined) {
      if (!Array.isArray(events) || events.length === 0) fail("events: must be a non-empty list of event types")
      else {
        for (const e of events) {
          if (!EVENT_TYPES.includes(e as SvcEventType)) fail(`events: unknown event type ${JSON.stringify(e)} (one of ${EVENT_TYPES.join(", ")})`)
        }
      }
    }
    if (ok) webhooks.push({ id: id as string, url: url as string, secret: secret as string, events: events as ReadonlyArray<SvcEventType> | undefined })
  })

  const events = isRecord(options.events) ? options.events : {}
  let nats: ResolvedEvents["nats"]
  if (isRecord(events.nats)) {
    const servers = typeof events.nats.servers === "string" ? [events.nats.servers] : events.nats.servers
    const subject = events.nats.subject
    const serverList = Array.isArray(servers) && servers.length > 0 && servers.every((s) => typeof s === "string" && s !== "")
      ? servers as ReadonlyArray<string>
      : undefined
    if (serverList === undefined) problems.push("events.nats.servers: must be a server URL or a non-empty list of them")
    if (typeof subject !== "string" || !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(subject)) {
      problems.push("events.nats.subject: must be a NATS subject without wildcards, e.g. svc.events")
    } else if (serverList !== undefined) nats = { servers: serverList, subject }
  }
  const delivery = isRecord(events.delivery) ? events.delivery : {}
  const retry = isRecord(delivery.retry) ? delivery.retry : {}
  const timeoutMs = positive(delivery.timeoutMs, "events.delivery.timeoutMs", 10_000, problems)
  const leaseMs = positive(delivery.leaseMs, "events.delivery.leaseMs", 60_000, problems)
  if (leaseMs <= timeoutMs) problems.push("events.delivery.leaseMs: must be longer than events.delivery.timeoutMs")
  return {
    webhooks,
    nats,
    sinks: events.sinks as ResolvedEvents["sinks"],
    delivery: {
      enabled: delivery.enabled !== false,
      pollIntervalMs: positive(delivery.pollIntervalMs, "events.delivery.pollIntervalMs", 250, problems),
      timeoutMs,
      leaseMs,
      batchSize: positive(delivery.batchSize, "events.delivery.batchSize", 50, problems),
      keepDeliveredMs: positive(delivery.keepDeliveredMs, "events.delivery.keepDeliveredMs", 86_400_000, problems),
      retry: {
        baseDelayMs: positive(retry.baseDelayMs, "events.delivery.retry.baseDelayMs", 5_000, problems),
        maxDelayMs: positive(retry.maxDelayMs, "events.delivery.retry.maxDelayMs", 6 * 3_600_000, problems),
        giveUpAfterMs: positive(retry.giveUpAfterMs, "events.delivery.retry.giveUpAfterMs", 3 * 86_400_000, problems)
      }
    }
  }
}
