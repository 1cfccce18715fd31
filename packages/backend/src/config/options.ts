import type { SqlClient } from "@effect/sql"
import type { ManifestOptions, SessionReport } from "@svc/schema"
import type { Layer } from "effect"
import type { EventsOptions, WebhookOptions } from "./events.js"
import type { TelemetryOptions } from "./telemetry.js"

export type { EventRetryOptions, EventsOptions, WebhookOptions } from "./events.js"
export type { TelemetryOptions } from "./telemetry.js"

export type SqlDialect = "sqlite" | "postgres" | "mysql"

/** A connection svc opens itself, or an `SqlClient` layer the host application owns. */
export type DatabaseOptions =
  | {
    readonly dialect: SqlDialect
    /** Postgres/MySQL connection URL; for SQLite a file path or `:memory:`. */
    readonly url: string
    /** Postgres only: the schema svc's tables live in (created by the migrations). */
    readonly schema?: string
  }
  | { readonly layer: Layer.Layer<SqlClient.SqlClient, unknown> }

export interface PolicySnapshotOptions {
  readonly signingKey: string
  readonly issuer?: string
  readonly audience?: string
  readonly ttlSeconds?: number
  readonly replayWindowSeconds?: number
}

export interface IdentityTokenOptions {
  readonly signingKey: string
  readonly issuer?: string
  readonly audience?: string
}

export interface LegalDocumentSnapshotOptions {
  readonly signingKey: string
  readonly issuer?: string
  readonly audience?: string
  readonly ttlSeconds?: number
}

export interface GvlOptions {
  /** `false` declines; writing the block opts in. */
  readonly enabled?: boolean
  /** URL of a GVL JSON document (v3 shape). Defaults to `manifest.iab.endpoint`. */
  readonly endpoint?: string
  /** Path of a GVL JSON file; wins over `endpoint`. */
  readonly file?: string
  /** Vendors this site works with; `/init` never returns others. */
  readonly vendorIds?: ReadonlyArray<number>
  /** How often the cached list is refreshed. Default 86400. */
  readonly refreshIntervalSeconds?: number
  /** Deadline for one fetch of the list. Default 10000. */
  readonly timeoutMs?: number
}

export interface IpAddressOptions {
  /** Store no IP at all when `false`. Default `true`. */
  readonly tracking?: boolean
  /** Mask the last IPv4 octet and IPv6 beyond /48. Default `true`. */
  readonly masking?: boolean
  /** Ordered headers the client IP is read from; the first present wins. */
  readonly ipAddressHeaders?: ReadonlyArray<string>
}

export interface OpenApiOptions {
  readonly enabled?: boolean
  readonly specPath?: string
  readonly title?: string
  /** Server base path written into the document's `servers`. */
  readonly basePath?: string
}

export interface ScriptOptions {
  readonly enabled?: boolean
  readonly path?: string
  readonly headlessPath?: string
  readonly iabPath?: string
  readonly backendURL?: string
  readonly config?: Readonly<Record<string, unknown>>
  readonly bundles?: { readonly full?: string; readonly headless?: string; readonly iab?: string }
}

export interface ManifestCacheOptions {
  readonly sMaxAge?: number
  readonly staleWhileRevalidate?: number
}

export type RequestLogLevel = "all" | "warnings" | "errors" | "none"

export interface ObservabilityOptions {
  /** Which requests emit a wide log event. Default `warnings` (4xx as warning, 5xx as error). */
  readonly requests?: RequestLogLevel
  /** Log line format. Default `logfmt`. */
  readonly format?: "logfmt" | "json" | "pretty"
}

/** One route group's limit: `limit` requests per `windowSeconds` (default 60) per client. */
export interface RateLimitRule {
  readonly limit: number
  readonly windowSeconds?: number
}

export interface RateLimitOptions {
  /** Where counters live. `memory` (default) counts per process; `{ redis }` shares them across replicas. */
  readonly store?: "memory" | {
    /** `redis://` or `rediss://` URL. */
    readonly redis: string
    /** Prefix of every key svc writes. Default `svc:ratelimit:` (plus the tenant id when set). */
    readonly keyPrefix?: string
  }
  /** `POST /subjects`, `PATCH /subjects/:id`, `POST /sessions`, per client IP. Default 120 per minute; `false` turns it off. */
  readonly publicWrites?: RateLimitRule | false
  /** Routes that need an API key, per key. Default 600 per minute; `false` turns it off. */
  readonly admin?: RateLimitRule | false
  /** `GET /init` per client IP: off unless set. */
  readonly init?: RateLimitRule
  /** `GET /manifest` per client IP: off unless set. */
  readonly manifest?: RateLimitRule
  /** The script bundles per client IP: off unless set. */
  readonly scripts?: RateLimitRule
}

export interface SessionOptions {
  readonly onReport?: (report: SessionReport) => void | Promise<void>
}

/** Storage limitation: how long proof fields and records are kept (days); each absent one is kept forever. */
export interface RetentionOptions {
  /** Clear a record's IP address this many days after its act. */
  readonly ipAddressDays?: number
  /** Clear a record's user agent this many days after its act. */
  readonly userAgentDays?: number
  /** Retire a record (keep it only as anonymous proof of the act) this many days after its act. */
  readonly recordDays?: number
  /** How often a running instance applies the rules, in minutes. Default 60. */
  readonly intervalMinutes?: number
}

/** Options accepted by `defineConfig` (config files) and `svcInstance`. */
export interface SvcConfigOptions {
  readonly database: DatabaseOptions
  readonly basePath?: string
  readonly trustedOrigins?: ReadonlyArray<string>
  readonly tenantId?: string
  readonly requireTenantId?: boolean
  readonly hosting?: "self-hosted" | "managed"
  readonly manifest?: typeof ManifestOptions.Encoded
  readonly manifestCache?: ManifestCacheOptions
  readonly apiKeys?: ReadonlyArray<string>
  readonly policySnapshot?: PolicySnapshotOptions
  readonly identityToken?: IdentityTokenOptions
  readonly legalDocumentSnapshot?: LegalDocumentSnapshotOptions
  readonly gvl?: GvlOptions
  readonly ipAddress?: IpAddressOptions
  readonly openapi?: OpenApiOptions
  readonly script?: ScriptOptions
  readonly rateLimit?: RateLimitOptions
  readonly retention?: RetentionOptions
  /** Endpoints that receive consent events (Standard Webhooks). */
  readonly webhooks?: ReadonlyArray<WebhookOptions>
  /** Event stream sink (NATS JetStream), custom sinks and delivery settings. */
  readonly events?: EventsOptions
  /** OpenTelemetry export (OTLP/HTTP) and the Prometheus endpoint; off unless written. */
  readonly telemetry?: TelemetryOptions
  readonly version?: string
}

/** Options of the instance constructor: the config plus what only a running instance uses. */
export interface SvcOptions extends SvcConfigOptions {
  readonly observability?: ObservabilityOptions
  readonly sessions?: SessionOptions
}
