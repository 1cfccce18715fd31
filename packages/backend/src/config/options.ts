import type * as S from "./schema.js"

/*
 * The public option types: each is what a user writes for one block of the options schema
 * (`schema.ts`), derived from it, never written out a second time.
 */

type Written<T extends { readonly Encoded: unknown }> = T["Encoded"]

/**
 * The three databases svc runs on: `sqlite`, `postgres` or `mysql` (MariaDB included).
 *
 * @example
 * ```ts
 * import type { SqlDialect } from "@svc/backend"
 *
 * // A setup script's suggestion for each database, shown before asking for the URL.
 * const exampleUrls: Record<SqlDialect, string> = {
 *   sqlite: "./svc.db",
 *   postgres: "postgres://svc@localhost:5432/svc",
 *   mysql: "mysql://svc@localhost:3306/svc"
 * }
 * ```
 */
export type SqlDialect = Written<typeof S.SqlDialect>

/**
 * A connection svc opens itself, or an `SqlClient` layer the host application owns. Either may
 * name a read side (`readUrl`, `readLayer`): a standby that period exports, the insight page and
 * experiment summaries read from (they may lag); everything else stays on the primary.
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { type DatabaseOptions, SvcServices } from "@svc/backend"
 * import { Redacted } from "effect"
 *
 * // svc shares the app's own connection pool (its tables go in the same database).
 * const AppDatabase = PgClient.layer({ url: Redacted.make(process.env.DATABASE_URL!) })
 * const database: DatabaseOptions = { layer: AppDatabase }
 * const SvcLive = SvcServices.layer({ database }, { migrate: true })
 * ```
 */
export type DatabaseOptions = Written<typeof S.DatabaseOptions>

/**
 * `policySnapshot`: the key `/init` signs its decisions with, so a late save proves the policy it was
 * made under; with it, a cookie-banner save must carry the token.
 *
 * @example
 * ```ts
 * import { defineConfig, type PolicySnapshotOptions } from "@svc/backend"
 *
 * // Short-lived tokens, and late saves accepted for three days instead of seven.
 * const policySnapshot: PolicySnapshotOptions = {
 *   signingKey: process.env.SVC_SNAPSHOT_KEY!,
 *   ttlSeconds: 900,
 *   replayWindowSeconds: 3 * 86_400
 * }
 * export default defineConfig({ database: { dialect: "sqlite", url: "./svc.db" }, policySnapshot })
 * ```
 */
export type PolicySnapshotOptions = Written<typeof S.PolicySnapshotOptions>

/**
 * `identityToken`: the key (and issuer, audience) of the HS256 tokens a browser sends to link a
 * subject to a signed-in user.
 *
 * @example
 * ```ts
 * import { defineConfig, type IdentityTokenOptions, signIdentityToken } from "@svc/backend"
 *
 * // One block for svc and for the app's sign-in route that mints the tokens.
 * const identityToken = {
 *   signingKey: process.env.SVC_IDENTITY_KEY!,
 *   issuer: "shop.example.com",
 *   audience: "svc-identity"
 * } satisfies IdentityTokenOptions
 *
 * export default defineConfig({ database: { dialect: "sqlite", url: "./svc.db" }, identityToken })
 * export const tokenFor = (userId: string) => signIdentityToken(identityToken, { externalId: userId })
 * ```
 */
export type IdentityTokenOptions = Written<typeof S.IdentityTokenOptions>

/**
 * `legalDocumentSnapshot`: the key of the tokens that say which legal document a visitor was shown,
 * checked when a legal-document save carries one.
 *
 * @example
 * ```ts
 * import { defineConfig, type LegalDocumentSnapshotOptions, signLegalDocumentSnapshot } from "@svc/backend"
 *
 * const legalDocumentSnapshot = {
 *   signingKey: process.env.SVC_LEGAL_KEY!,
 *   ttlSeconds: 3_600
 * } satisfies LegalDocumentSnapshotOptions
 *
 * export default defineConfig({ database: { dialect: "sqlite", url: "./svc.db" }, legalDocumentSnapshot })
 * // The page that shows the terms signs what it showed, with the same settings.
 * export const shownTerms = (hash: string) =>
 *   signLegalDocumentSnapshot(legalDocumentSnapshot, { type: "terms_and_conditions", hash, version: "2026-03" })
 * ```
 */
export type LegalDocumentSnapshotOptions = Written<typeof S.LegalDocumentSnapshotOptions>

/**
 * `transparencyLog`: the note signer key of the tamper-evident consent log (from `svc keys log`) and
 * how often it signs a checkpoint.
 *
 * @example
 * ```ts
 * import { defineConfig, type TransparencyLogOptions } from "@svc/backend"
 *
 * // A checkpoint every five minutes is plenty for a site with a few saves a minute.
 * const transparencyLog: TransparencyLogOptions = {
 *   signingKey: process.env.SVC_LOG_SIGNER_KEY!,
 *   checkpointIntervalSeconds: 300
 * }
 * export default defineConfig({ database: { dialect: "postgres", url: process.env.DATABASE_URL! }, transparencyLog })
 * ```
 */
export type TransparencyLogOptions = Written<typeof S.TransparencyLogOptions>

/**
 * `gvl`: where the IAB Global Vendor List comes from, which vendors `/init` may name, and how often
 * it is refreshed.
 *
 * @example
 * ```ts
 * import type { GvlOptions } from "@svc/backend"
 *
 * // Only the vendors this site works with, refreshed twice a day.
 * const gvl: GvlOptions = {
 *   endpoint: "https://vendor-list.consensu.org/v3/vendor-list.json",
 *   vendorIds: [2, 21, 755],
 *   refreshIntervalSeconds: 43_200
 * }
 * ```
 */
export type GvlOptions = Written<typeof S.GvlOptions>

/**
 * `ipAddress`: whether IPs are stored with a consent, masked or not, and which headers the client IP
 * is read from.
 *
 * @example
 * ```ts
 * import { svcInstance, type IpAddressOptions } from "@svc/backend"
 *
 * // Behind Cloudflare only: its header is the one a visitor cannot set.
 * const ipAddress: IpAddressOptions = { ipAddressHeaders: ["cf-connecting-ip"], masking: true }
 * const svc = svcInstance({ database: { dialect: "sqlite", url: "./svc.db" }, ipAddress })
 * ```
 */
export type IpAddressOptions = Written<typeof S.IpAddressOptions>

/**
 * `geo`: where `/init` looks the client IP up when no override or edge header names the location.
 *
 * @example
 * ```ts
 * import type { GeoOptions } from "@svc/backend"
 *
 * // MaxMind's GeoLite2 where `geoipupdate` keeps it fresh; no lookup at all where it is not installed.
 * const geoFor = (path: string | undefined): GeoOptions =>
 *   path === undefined ? { database: false } : { database: path, checkIntervalSeconds: 300 }
 *
 * const geo = geoFor(process.env.GEOIP_CITY_DB)
 * ```
 */
export type GeoOptions = Written<typeof S.GeoOptions>

/**
 * `openapi`: whether and where the instance serves its OpenAPI document, and the title and server
 * path written into it.
 *
 * @example
 * ```ts
 * import { svcInstance, type OpenApiOptions } from "@svc/backend"
 *
 * // Mounted under /consent behind a gateway that publishes it as https://api.example.com/consent.
 * const openapi: OpenApiOptions = {
 *   specPath: "/openapi.json",
 *   title: "Example Inc. consent API",
 *   basePath: "/consent"
 * }
 * const svc = svcInstance({ database: { dialect: "sqlite", url: "./svc.db" }, basePath: "/consent", openapi })
 * ```
 */
export type OpenApiOptions = Written<typeof S.OpenApiOptions>

/**
 * `script`: the browser bundles the instance serves, their paths, and the configuration sent to every
 * page (never a secret).
 *
 * @example
 * ```ts
 * import type { ScriptOptions } from "@svc/backend"
 *
 * // The bundles are served from the site's own domain; the banner calls svc on its own host.
 * const script: ScriptOptions = {
 *   path: "/consent.js",
 *   backendURL: "https://consent.example.com",
 *   config: { privacyPolicyUrl: "https://www.example.com/privacy" }
 * }
 * ```
 */
export type ScriptOptions = Written<typeof S.ScriptOptions>

/**
 * `manifestCache`: how long CDNs and browsers may cache `GET /manifest`, in seconds.
 *
 * @example
 * ```ts
 * import { defineConfig, type ManifestCacheOptions } from "@svc/backend"
 *
 * // While the rules are still being tuned, caches hold the manifest for a minute only.
 * const manifestCache: ManifestCacheOptions = { sMaxAge: 60, staleWhileRevalidate: 600 }
 * export default defineConfig({ database: { dialect: "sqlite", url: "./svc.db" }, manifestCache })
 * ```
 */
export type ManifestCacheOptions = Written<typeof S.ManifestCacheOptions>

/**
 * Which answered requests write a log line: `all`, `warnings` (4xx and 5xx, the default), `errors`
 * (5xx) or `none`.
 *
 * @example
 * ```ts
 * import { svcInstance, type RequestLogLevel } from "@svc/backend"
 *
 * // Every request while developing; only failures in production.
 * const requests: RequestLogLevel = process.env.NODE_ENV === "production" ? "warnings" : "all"
 * const svc = svcInstance({ database: { dialect: "sqlite", url: "./svc.db" }, observability: { requests } })
 * ```
 */
export type RequestLogLevel = Written<typeof S.RequestLogLevel>

/**
 * `observability` (instance only): which requests are logged, and in which line format.
 *
 * @example
 * ```ts
 * import { svcInstance, type ObservabilityOptions } from "@svc/backend"
 *
 * // JSON lines for the log pipeline, and only server errors: the CDN logs the rest.
 * const observability: ObservabilityOptions = { requests: "errors", format: "json" }
 * const svc = svcInstance({ database: { dialect: "postgres", url: process.env.DATABASE_URL! }, observability })
 * ```
 */
export type ObservabilityOptions = Written<typeof S.ObservabilityOptions>

/**
 * One route group's limit: `limit` requests per `windowSeconds` (default 60) per client.
 *
 * @example
 * ```ts
 * import type { RateLimitOptions, RateLimitRule } from "@svc/backend"
 *
 * // One budget for every public route group: 300 requests a minute per client IP.
 * const perVisitor: RateLimitRule = { limit: 300, windowSeconds: 60 }
 * const rateLimit: RateLimitOptions = { init: perVisitor, manifest: perVisitor, scripts: perVisitor }
 * ```
 */
export type RateLimitRule = Written<typeof S.RateLimitRule>

/**
 * `rateLimit`: where the counters live and the limit of each route group; set, it limits public
 * writes and API-key routes by default.
 *
 * @example
 * ```ts
 * import { defineConfig, type RateLimitOptions } from "@svc/backend"
 *
 * // Counters shared by every replica; admin scripts get more room, the import job's key included.
 * const rateLimit: RateLimitOptions = {
 *   store: { redis: process.env.REDIS_URL!, keyPrefix: "shop:svc:" },
 *   admin: { limit: 3_000 },
 *   init: { limit: 600 }
 * }
 * export default defineConfig({ database: { dialect: "postgres", url: process.env.DATABASE_URL! }, rateLimit })
 * ```
 */
export type RateLimitOptions = Written<typeof S.RateLimitOptions>

/**
 * `sessions` (instance only): `onReport` receives every policy resolution, from `/init` and from
 * `POST /sessions`; it never delays or fails a request.
 *
 * @example
 * ```ts
 * import { svcInstance, type SessionOptions } from "@svc/backend"
 *
 * // Which rule visitors get, counted per rule for a dashboard.
 * const shown = new Map<string, number>()
 * const sessions: SessionOptions = {
 *   onReport: (report) => {
 *     const rule = report.policy?.id ?? report.resolution
 *     shown.set(rule, (shown.get(rule) ?? 0) + 1)
 *   }
 * }
 * const svc = svcInstance({ database: { dialect: "sqlite", url: "./svc.db" }, sessions })
 * ```
 */
export type SessionOptions = Written<typeof S.SessionOptions>

/**
 * Storage limitation: how long proof fields and records are kept (days); each absent one is kept forever.
 *
 * @example
 * ```ts
 * import { defineConfig, type RetentionOptions } from "@svc/backend"
 *
 * // IPs and user agents for 90 days, the records themselves for three years.
 * const retention: RetentionOptions = { ipAddressDays: 90, userAgentDays: 90, recordDays: 3 * 365 }
 * export default defineConfig({ database: { dialect: "postgres", url: process.env.DATABASE_URL! }, retention })
 * ```
 */
export type RetentionOptions = Written<typeof S.RetentionOptions>

/**
 * One webhook endpoint (a fixed option shape): events are POSTed to `url`, signed with `secret` (Standard Webhooks).
 *
 * @example
 * ```ts
 * import type { WebhookOptions } from "@svc/backend"
 *
 * // The CRM hears only what changes marketing permission; the data warehouse hears everything.
 * const webhooks: ReadonlyArray<WebhookOptions> = [
 *   { id: "crm", url: "https://crm.example.com/svc-events", secret: process.env.CRM_WEBHOOK_SECRET!,
 *     events: ["consent.withdrawn", "subject.erased"] },
 *   { id: "warehouse", url: "https://ingest.example.com/svc", secret: process.env.WAREHOUSE_WEBHOOK_SECRET! }
 * ]
 * ```
 */
export type WebhookOptions = Written<typeof S.WebhookOptions>

/**
 * `events.delivery.retry`: the backoff of a failing delivery (full jitter, doubling windows) and when
 * it is given up as `failed`.
 *
 * @example
 * ```ts
 * import type { EventRetryOptions } from "@svc/backend"
 *
 * // A receiver that is rarely down for long: retry fast, and give up after a day.
 * const retry: EventRetryOptions = { baseDelayMs: 1_000, maxDelayMs: 600_000, giveUpAfterMs: 86_400_000 }
 * ```
 */
export type EventRetryOptions = Written<typeof S.EventRetryOptions>

/**
 * `events`: the NATS JetStream sink, custom sinks, and how this instance delivers what the outbox
 * holds.
 *
 * @example
 * ```ts
 * import { defineConfig, type EventsOptions } from "@svc/backend"
 *
 * // Web replicas only write events; a worker replica (with `enabled: true`) delivers them.
 * const events: EventsOptions = {
 *   nats: { servers: ["nats://nats-1:4222", "nats://nats-2:4222"], subject: "svc.events" },
 *   delivery: { enabled: process.env.SVC_ROLE === "worker" }
 * }
 * export default defineConfig({ database: { dialect: "postgres", url: process.env.DATABASE_URL! }, events })
 * ```
 */
export type EventsOptions = Written<typeof S.EventsOptions>

/**
 * `telemetry` (a fixed option shape): OpenTelemetry export and the Prometheus endpoint. Both are off unless written.
 *
 * @example
 * ```ts
 * import { defineConfig, type TelemetryOptions } from "@svc/backend"
 *
 * // Traces and metrics to Honeycomb, and /metrics for the Prometheus that scrapes with an API key.
 * const telemetry: TelemetryOptions = {
 *   serviceName: "consent",
 *   otlp: { url: "https://api.honeycomb.io", headers: { "x-honeycomb-team": process.env.HONEYCOMB_KEY! } },
 *   prometheus: {}
 * }
 * export default defineConfig({
 *   database: { dialect: "sqlite", url: "./svc.db" },
 *   apiKeys: [process.env.SVC_API_KEY!],
 *   telemetry
 * })
 * ```
 */
export type TelemetryOptions = Written<typeof S.TelemetryOptions>

/**
 * Options accepted by `defineConfig` (config files) and `svcInstance`.
 *
 * @example
 * ```ts
 * import { defineConfig, type SvcConfigOptions } from "@svc/backend"
 *
 * // One database, one instance per brand: each config differs only in its tenant and origins.
 * const brand = (tenantId: string, origin: string): SvcConfigOptions => ({
 *   database: { dialect: "postgres", url: process.env.DATABASE_URL! },
 *   tenantId,
 *   requireTenantId: true,
 *   trustedOrigins: [origin]
 * })
 * export default defineConfig(brand("shop-eu", "shop.example.eu"))
 * ```
 */
export type SvcConfigOptions = Written<typeof S.ConfigOptions>

/**
 * Options of the instance constructor: the config plus what only a running instance uses.
 *
 * @example
 * ```ts
 * import { svcInstance, type SvcConfigOptions, type SvcOptions } from "@svc/backend"
 *
 * // The shared config file's options, plus what only a running instance takes.
 * const forServer = (config: SvcConfigOptions): SvcOptions => ({
 *   ...config,
 *   observability: { format: "json" },
 *   sessions: { onReport: (report) => console.log(report.policy?.id) }
 * })
 * const svc = svcInstance(forServer({ database: { dialect: "sqlite", url: "./svc.db" } }), { migrate: true })
 * ```
 */
export type SvcOptions = Written<typeof S.InstanceOptions>
