import type { SqlClient } from "@effect/sql"
import { Hosting, ManifestOptions, type SessionReport, SvcEventType } from "@svc/schema"
import { parseSignerKey } from "@svc/schema/transparency"
import { Layer, Schema } from "effect"
import type { EventSinks } from "./event-sinks.js"
import { DIALECTS } from "./database-options.js"
import { normalizeOrigin } from "./origins.js"

/*
 * The options, written once: the public option types (`options.ts`) are this schema's encoded
 * side, and validating options is decoding them with it (`validate.ts`), which also applies the
 * defaults. A rule on one value or one block lives here, next to the field, with its message;
 * only rules across blocks (and the database wording) live in `validate.ts`. Messages never
 * quote a value that may be a secret.
 */

/** A message that replaces every finer one the schema would give for this value. */
const says = (message: string) => () => ({ message, override: true })
const got = (actual: unknown) => actual === null ? "null" : typeof actual

const declared = <A>(guard: (u: unknown) => u is A, identifier: string) => Schema.declare(guard, { identifier })
const AnyLayer = <A>() => declared((u): u is A => Layer.isLayer(u), "Layer")

const Seconds = Schema.Int.pipe(Schema.nonNegative())
const Positive = Schema.Int.pipe(Schema.positive())
/** A route path; typed as one for the router (`/${string}`), with the message `Schema.startsWith` gives. */
const Path = Schema.String.pipe(
  Schema.filter((s): s is `/${string}` => s.startsWith("/"), { description: 'a string starting with "/"' })
)
/** A retention window: whole days, at least one, at most a hundred years. */
const RetentionDays = Schema.Int.pipe(Schema.between(1, 36_500))
const NonEmpty = Schema.String.pipe(Schema.minLength(1, { message: () => "must be a non-empty string" }))
const PositiveInteger = Schema.Number.pipe(Schema.filter((n) => Number.isSafeInteger(n) && n > 0)).annotations({
  message: says("must be a positive integer")
})
const byteLength = (s: string) => new TextEncoder().encode(s).length
const MIN_KEY_BYTES = 32

export const SqlDialect = Schema.Literal(...DIALECTS)

/** A connection svc opens itself, or an `SqlClient` layer the host application owns. */
export const DatabaseOptions = Schema.Union(
  Schema.Struct({
    dialect: SqlDialect,
    /** Postgres/MySQL connection URL; for SQLite a file path or `:memory:`. */
    url: Schema.String.pipe(Schema.minLength(1)),
    /** Postgres only: the schema svc's tables live in (created by the migrations). */
    schema: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/))),
    /**
     * Postgres and MySQL: a standby (replica) that exports, the insight page and experiment
     * summaries read from; everything else stays on `url`. Absent: they read from `url` too.
     */
    readUrl: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
    /**
     * Postgres and MySQL: the most connections each pool svc opens holds (the primary's, and
     * `readUrl`'s); 10 when absent. SQLite has one connection and refuses it.
     */
    maxConnections: Schema.optional(PositiveInteger)
  }),
  Schema.Struct({
    layer: AnyLayer<Layer.Layer<SqlClient.SqlClient, unknown>>(),
    /** The `SqlClient` exports, the insight page and experiment summaries read from. Absent: `layer`. */
    readLayer: Schema.optional(AnyLayer<Layer.Layer<SqlClient.SqlClient, unknown>>())
  })
)

const TenantId = Schema.String.annotations({ message: (issue) => `must be a string (got ${got(issue.actual)})` }).pipe(
  Schema.filter((s) => s.trim() !== "" || "must not be empty"),
  Schema.filter((s) => s.trim() === s || "must not start or end with white space"),
  Schema.filter((s) => s.length <= 255 || "at most 255 characters")
)

const InstanceHosting = Hosting.annotations({
  message: (issue) => ({
    message: `must be "self-hosted" or "managed" (got ${JSON.stringify(issue.actual)})`,
    override: true
  })
})

const BasePath = Schema.String.pipe(Schema.filter((path) => {
  const trimmed = path.replace(/\/+$/, "")
  return trimmed === "" || /^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/.test(trimmed) ||
    `must be a path such as "/api/svc" (got ${JSON.stringify(path)})`
}))

const TrustedOrigin = Schema.String.pipe(
  Schema.filter((entry) =>
    normalizeOrigin(entry) !== undefined || `not a host, host:port, *.domain or * (got ${JSON.stringify(entry)})`
  )
)

/** How to make a key of this kind: `svc keys <kind>` prints one (random, the right form). */
const generateHint = (kind: "api" | "snapshot" | "identity" | "webhook") => `generate one with \`svc keys ${kind}\``

/** A key of at least 32 bytes; the message never quotes the value, and says how to get a good one. */
const minKeyBytes = (kind: "api" | "snapshot" | "identity") => (key: string) =>
  byteLength(key) >= MIN_KEY_BYTES || `must be at least ${MIN_KEY_BYTES} bytes; ${generateHint(kind)}`

const ApiKey = Schema.String.pipe(
  Schema.filter((key) =>
    (key.trim() !== "" && key.trim() === key) || "must be a non-empty string without surrounding white space"
  ),
  Schema.filter(minKeyBytes("api"))
)

const signingFields = (kind: "snapshot" | "identity") => ({
  signingKey: Schema.String.pipe(Schema.filter(minKeyBytes(kind))),
  issuer: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  audience: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
})

export const PolicySnapshotOptions = Schema.Struct({
  ...signingFields("snapshot"),
  ttlSeconds: Schema.optional(Positive),
  replayWindowSeconds: Schema.optional(Seconds)
})

export const IdentityTokenOptions = Schema.Struct(signingFields("identity"))

export const LegalDocumentSnapshotOptions = Schema.Struct({
  ...signingFields("snapshot"),
  ttlSeconds: Schema.optional(Positive)
})

/** A C2SP note signer key (`svc keys log` prints one): checked by parsing it, never quoted in a problem. */
const NoteSignerKey = Schema.String.pipe(
  Schema.filter((key) =>
    parseSignerKey(key) !== undefined || "must be an Ed25519 note signer key (PRIVATE+KEY+<name>+<hash>+<base64>)"
  )
)

export const TransparencyLogOptions = Schema.Struct({
  signingKey: NoteSignerKey,
  /** Whole seconds between checkpoints (default 60). */
  checkpointIntervalSeconds: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)))
})

const NotHere = (message: string) => Schema.optional(Schema.Never.annotations({ message: () => message }))

/** The authored manifest; its tenant and hosting are the instance's own options. */
const InstanceManifest = Schema.Struct({
  ...ManifestOptions.fields,
  tenantId: NotHere("not supported; set the instance's tenantId instead"),
  hosting: NotHere("not supported; set the instance's hosting instead")
})

export const ManifestCacheOptions = Schema.Struct({
  sMaxAge: Schema.optional(Seconds),
  staleWhileRevalidate: Schema.optional(Seconds)
})

export const GvlOptions = Schema.Struct({
  /** `false` declines; writing the block opts in. */
  enabled: Schema.optional(Schema.Boolean),
  /** URL of a GVL JSON document (v3 shape). Defaults to `manifest.iab.endpoint`. */
  endpoint: Schema.optional(Schema.String.pipe(Schema.pattern(/^https?:\/\//))),
  /** Path of a GVL JSON file; wins over `endpoint`. */
  file: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  /** Vendors this site works with; `/init` never returns others. */
  vendorIds: Schema.optional(Schema.Array(Positive)),
  /** How often the cached list is refreshed. Default 86400. */
  refreshIntervalSeconds: Schema.optional(Positive),
  /** Deadline for one fetch of the list. Default 10000. */
  timeoutMs: Schema.optional(Positive)
})

export const IpAddressOptions = Schema.Struct({
  /** Store no IP at all when `false`. Default `true`. */
  tracking: Schema.optional(Schema.Boolean),
  /** Mask the last IPv4 octet and IPv6 beyond /48. Default `true`. */
  masking: Schema.optional(Schema.Boolean),
  /** Ordered headers the client IP is read from; the first present wins. */
  ipAddressHeaders: Schema.optional(Schema.Array(Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9-]+$/))))
})

/** `geo`: where `/init` looks the client IP up when no override or edge header names the location. */
export const GeoOptions = Schema.Struct({
  /**
   * A MaxMind-format City or Country file (GeoLite2, GeoIP2), reloaded when it changes; `false`
   * turns IP lookup off. Absent: the built-in DB-IP Lite table.
   */
  database: Schema.optional(Schema.Union(Schema.String.pipe(Schema.minLength(1)), Schema.Literal(false))),
  /** How often the file is checked for a change, in seconds. Default 60. */
  checkIntervalSeconds: Schema.optional(Schema.Int.pipe(Schema.between(1, 86_400)))
})

export const OpenApiOptions = Schema.Struct({
  enabled: Schema.optional(Schema.Boolean),
  specPath: Schema.optional(Path),
  title: Schema.optional(Schema.String),
  /** Server base path written into the document's `servers`. */
  basePath: Schema.optional(Schema.String)
})

/** Key names that look like secrets: script config is sent to every browser. */
const secretLike = /secret|signing|api[-_]?key|password|private|token/i

export const ScriptOptions = Schema.Struct({
  enabled: Schema.optional(Schema.Boolean),
  path: Schema.optional(Path),
  headlessPath: Schema.optional(Path),
  iabPath: Schema.optional(Path),
  backendURL: Schema.optional(Schema.String.pipe(Schema.pattern(/^(https?:\/\/|\/)/))),
  config: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
      Schema.filter((config) =>
        Object.keys(config).filter((key) => secretLike.test(key)).map((key) => ({
          path: [key],
          message: "looks like a secret; script config is sent to every browser"
        }))
      )
    )
  ),
  bundles: Schema.optional(Schema.Struct({
    full: Schema.optional(Schema.String),
    headless: Schema.optional(Schema.String),
    iab: Schema.optional(Schema.String)
  }))
})

export const RetentionOptions = Schema.Struct({
  /** Clear a record's IP address this many days after its act. */
  ipAddressDays: Schema.optional(RetentionDays),
  /** Clear a record's user agent this many days after its act. */
  userAgentDays: Schema.optional(RetentionDays),
  /** Retire a record (keep it only as anonymous proof of the act) this many days after its act. */
  recordDays: Schema.optional(RetentionDays),
  /** How often a running instance applies the rules, in minutes. Default 60. */
  intervalMinutes: Schema.optional(Schema.Int.pipe(Schema.between(1, 10_080))),
  /**
   * PostgreSQL (partitioned `svc_consents`): with `recordDays`, drop each month whose acts are all
   * past it, records and anonymous proof alike, instead of retiring its rows one by one. Default false.
   */
  dropExpiredMonths: Schema.optional(Schema.Boolean)
})

/** One route group's limit: `limit` requests per `windowSeconds` (default 60) per client. */
export const RateLimitRule = Schema.Struct({
  limit: Positive,
  windowSeconds: Schema.optional(Positive)
})

const isRedisUrl = (url: string): boolean => {
  try {
    const parsed = new URL(url)
    return (parsed.protocol === "redis:" || parsed.protocol === "rediss:") && parsed.hostname !== ""
  } catch {
    return false
  }
}

/** A Redis URL may carry a password: no message about it quotes it. */
const RateLimitStore = Schema.Union(
  Schema.Literal("memory"),
  Schema.Struct({
    /** `redis://` or `rediss://` URL. */
    redis: Schema.String.pipe(Schema.filter((url) => isRedisUrl(url) || "must be a redis:// or rediss:// URL")),
    /** Prefix of every key svc writes. Default `svc:ratelimit:` (plus the tenant id when set). */
    keyPrefix: Schema.optional(NonEmpty)
  })
).annotations({
  // A block is checked field by field; anything else gets one line that does not repeat it.
  message: (issue) => ({
    message: `must be "memory" or { redis: "redis://…" }`,
    override: typeof issue.actual !== "object" || issue.actual === null
  })
})

export const RateLimitOptions = Schema.Struct({
  /** Where counters live. `memory` (default) counts per process; `{ redis }` shares them across replicas. */
  store: Schema.optional(RateLimitStore),
  /** `POST /subjects`, `PATCH /subjects/:id`, `POST /sessions`, per client IP. Default 120 per minute; `false` turns it off. */
  publicWrites: Schema.optional(Schema.Union(RateLimitRule, Schema.Literal(false))),
  /** Routes that need an API key, per key. Default 600 per minute; `false` turns it off. */
  admin: Schema.optional(Schema.Union(RateLimitRule, Schema.Literal(false))),
  /** `GET /init` per client IP: off unless set. */
  init: Schema.optional(RateLimitRule),
  /** `GET /manifest` per client IP: off unless set. */
  manifest: Schema.optional(RateLimitRule),
  /** The script bundles per client IP: off unless set. */
  scripts: Schema.optional(RateLimitRule)
})

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"])

/** Why a webhook URL is refused, if it is (https, or http on a loopback host). */
const webhookUrlProblem = (url: string): string | undefined => {
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

const MIN_SECRET_BYTES = 32

/** A Standard Webhooks secret: `whsec_` + base64 of at least 32 bytes. The value is never quoted. */
const webhookSecretProblem = (secret: string): string | undefined => {
  const form = `must be whsec_ followed by base64 (Standard Webhooks form); ${generateHint("webhook")}`
  if (!secret.startsWith("whsec_")) return form
  const body = secret.slice("whsec_".length)
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return form
  if (Buffer.from(body, "base64").length < MIN_SECRET_BYTES) {
    return `must encode at least ${MIN_SECRET_BYTES} bytes; ${generateHint("webhook")}`
  }
  return undefined
}

const EventType = SvcEventType.annotations({
  message: (issue) => ({
    message: `unknown event type ${JSON.stringify(issue.actual)} (one of ${SvcEventType.literals.join(", ")})`,
    override: true
  })
})

/** One webhook endpoint (a fixed option shape): events are POSTed to `url`, signed with `secret` (Standard Webhooks). */
export const WebhookOptions = Schema.Struct({
  /** Names the endpoint in `/events/deliveries` and `/status`: `[A-Za-z0-9_.-]{1,64}`. */
  id: Schema.String.pipe(
    Schema.filter((id) => /^[A-Za-z0-9_.-]{1,64}$/.test(id) || "must match [A-Za-z0-9_.-]{1,64}"),
    Schema.filter((id) => id !== "nats" || `"nats" is reserved (the NATS sink's id)`)
  ),
  /** `https:`; `http:` only for loopback receivers (localhost, 127.0.0.1, [::1]). */
  url: Schema.String.pipe(Schema.filter(webhookUrlProblem)),
  /** `whsec_` followed by base64 of at least 32 random bytes. Never logged. */
  secret: Schema.String.pipe(Schema.filter(webhookSecretProblem)),
  /** Event types sent to this endpoint; all when omitted. */
  events: Schema.optional(
    Schema.Array(EventType).pipe(Schema.minItems(1, { message: () => "must be a non-empty list of event types" }))
  )
})

/** Delivery defaults, read by the lease rule below and by `resolveEvents`. */
export const DELIVERY_DEFAULTS = {
  pollIntervalMs: 250,
  timeoutMs: 10_000,
  leaseMs: 60_000,
  batchSize: 50,
  keepDeliveredMs: 86_400_000,
  retry: { baseDelayMs: 5_000, maxDelayMs: 6 * 3_600_000, giveUpAfterMs: 3 * 86_400_000 }
} as const

export const EventRetryOptions = Schema.Struct({
  /** First retry window; each later one doubles (full jitter: a random delay inside the window). Default 5000. */
  baseDelayMs: Schema.optional(PositiveInteger),
  /** Largest retry window. Default 6 hours. */
  maxDelayMs: Schema.optional(PositiveInteger),
  /** A delivery still failing this long after its event is marked `failed`. Default 3 days. */
  giveUpAfterMs: Schema.optional(PositiveInteger)
})

const DeliveryOptions = Schema.Struct({
  /** `false`: this instance writes events but never delivers them (another replica does). Default `true`. */
  enabled: Schema.optional(Schema.Boolean),
  /** How often an idle deliverer looks for due events. Default 250. */
  pollIntervalMs: Schema.optional(PositiveInteger),
  /** One webhook request's deadline. Default 10000. */
  timeoutMs: Schema.optional(PositiveInteger),
  /** How long a claimed delivery is held before another replica may take it. Default 60000. */
  leaseMs: Schema.optional(PositiveInteger),
  /** Deliveries claimed per round. Default 50. */
  batchSize: Schema.optional(PositiveInteger),
  /** How long delivered events stay listed before they are deleted. Default 1 day. */
  keepDeliveredMs: Schema.optional(PositiveInteger),
  retry: Schema.optional(EventRetryOptions)
}).pipe(
  Schema.filter((delivery) =>
    (delivery.leaseMs ?? DELIVERY_DEFAULTS.leaseMs) > (delivery.timeoutMs ?? DELIVERY_DEFAULTS.timeoutMs) ||
    { path: ["leaseMs"], message: "must be longer than events.delivery.timeoutMs" }
  )
)

export const EventsOptions = Schema.Struct({
  /** NATS JetStream: each event is published to `subject` and counts as delivered once the stream acknowledges it. */
  nats: Schema.optional(Schema.Struct({
    servers: Schema.Union(NonEmpty, Schema.NonEmptyArray(NonEmpty)).annotations({
      message: says("must be a server URL or a non-empty list of them")
    }),
    subject: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, {
      message: () => "must be a NATS subject without wildcards, e.g. svc.events"
    }))
  })),
  /** Further sinks (Kafka, Redis Streams…) as a layer of `EventSinks`; they receive every event. */
  sinks: Schema.optional(AnyLayer<Layer.Layer<EventSinks, unknown>>()),
  delivery: Schema.optional(DeliveryOptions)
})

const httpUrl = (url: string) => {
  try {
    const { protocol } = new URL(url)
    return protocol === "http:" || protocol === "https:"
  } catch {
    return false
  }
}

/** `telemetry` (a fixed option shape): OpenTelemetry export and the Prometheus endpoint. Both are off unless written. */
export const TelemetryOptions = Schema.Struct({
  /** `service.name` of exported traces and metrics. Default `svc`. */
  serviceName: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  /** OTLP/HTTP collector: traces go to `{url}/v1/traces`, metrics to `{url}/v1/metrics`. */
  otlp: Schema.optional(Schema.Struct({
    url: Schema.String.pipe(
      Schema.filter((url) => httpUrl(url) || "expected an http: or https: URL of an OTLP/HTTP collector")
    ),
    /** Sent with every export (for example an authorization header); never logged. */
    headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
  })),
  /** `GET {path}` (default `/metrics`) in the Prometheus text format, for a configured API key. */
  prometheus: Schema.optional(Schema.Struct({ path: Schema.optional(Path) }))
})

export const RequestLogLevel = Schema.Literal("all", "warnings", "errors", "none")
export const LogFormat = Schema.Literal("logfmt", "json", "pretty")
/**
 * What `observability.requests` accepts (and so `svc serve --log-requests`): which answered
 * requests write a log line.
 *
 * @example
 * ```ts
 * import { REQUEST_LOG_LEVELS, type RequestLogLevel, svcInstance } from "@svc/backend"
 *
 * const isLevel = (value: string): value is RequestLogLevel => REQUEST_LOG_LEVELS.some((level) => level === value)
 * const requests = process.env.LOG_REQUESTS ?? "warnings"
 * if (!isLevel(requests)) throw new Error(`LOG_REQUESTS: one of ${REQUEST_LOG_LEVELS.join(", ")}`)
 * const svc = svcInstance({ database: { dialect: "sqlite", url: "./svc.db" }, observability: { requests } })
 * ```
 */
export const REQUEST_LOG_LEVELS = RequestLogLevel.literals
/**
 * What `observability.format` accepts (and so `svc serve --log-format`): the log line format.
 *
 * @example
 * ```ts
 * import { LOG_FORMATS, type ObservabilityOptions } from "@svc/backend"
 *
 * // A launcher that refuses a format svc would refuse, before anything starts.
 * const wanted = process.env.LOG_FORMAT ?? "logfmt"
 * const format = LOG_FORMATS.find((known) => known === wanted)
 * if (format === undefined) throw new Error(`LOG_FORMAT: one of ${LOG_FORMATS.join(", ")}`)
 * const observability: ObservabilityOptions = { format, requests: "errors" }
 * ```
 */
export const LOG_FORMATS = LogFormat.literals

export const ObservabilityOptions = Schema.Struct({
  /** Which requests emit a wide log event. Default `warnings` (4xx as warning, 5xx as error). */
  requests: Schema.optional(RequestLogLevel),
  /** Log line format. Default `logfmt`. */
  format: Schema.optional(LogFormat)
})

export const SessionOptions = Schema.Struct({
  onReport: Schema.optional(declared(
    (u): u is (report: SessionReport) => void | Promise<void> => typeof u === "function",
    "function"
  ))
})

/** Options accepted by `defineConfig` (config files) and `svcInstance`. */
export const ConfigOptions = Schema.Struct({
  database: DatabaseOptions,
  basePath: Schema.optional(BasePath),
  trustedOrigins: Schema.optional(Schema.Array(TrustedOrigin)),
  tenantId: Schema.optional(TenantId),
  requireTenantId: Schema.optional(Schema.Boolean),
  hosting: Schema.optional(InstanceHosting),
  manifest: Schema.optional(InstanceManifest),
  manifestCache: Schema.optional(ManifestCacheOptions),
  apiKeys: Schema.optional(Schema.Array(ApiKey)),
  policySnapshot: Schema.optional(PolicySnapshotOptions),
  identityToken: Schema.optional(IdentityTokenOptions),
  legalDocumentSnapshot: Schema.optional(LegalDocumentSnapshotOptions),
  /** The tamper-evident consent log: its note signer key and checkpoint interval. */
  transparencyLog: Schema.optional(TransparencyLogOptions),
  gvl: Schema.optional(GvlOptions),
  ipAddress: Schema.optional(IpAddressOptions),
  geo: Schema.optional(GeoOptions),
  openapi: Schema.optional(OpenApiOptions),
  script: Schema.optional(ScriptOptions),
  rateLimit: Schema.optional(RateLimitOptions),
  retention: Schema.optional(RetentionOptions),
  /**
   * PostgreSQL: who makes the monthly partitions of `svc_consents` ahead: `"svc"` (default, every
   * instance at start and hourly) or `"external"` (pg_partman or the operator; svc makes none).
   */
  consentPartitions: Schema.optional(Schema.Literal("svc", "external")),
  /** Endpoints that receive consent events (Standard Webhooks). */
  webhooks: Schema.optional(Schema.Array(WebhookOptions)),
  /** Event stream sink (NATS JetStream), custom sinks and delivery settings. */
  events: Schema.optional(EventsOptions),
  /** OpenTelemetry export (OTLP/HTTP) and the Prometheus endpoint; off unless written. */
  telemetry: Schema.optional(TelemetryOptions),
  version: Schema.optional(Schema.String)
})

/** Options of the instance constructor: the config plus what only a running instance uses. */
export const InstanceOptions = Schema.Struct({
  ...ConfigOptions.fields,
  observability: Schema.optional(ObservabilityOptions),
  sessions: Schema.optional(SessionOptions)
})
