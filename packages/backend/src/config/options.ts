import type * as S from "./schema.js"

/*
 * The public option types: each is what a user writes for one block of the options schema
 * (`schema.ts`), derived from it, never written out a second time.
 */

type Written<T extends { readonly Encoded: unknown }> = T["Encoded"]

export type SqlDialect = Written<typeof S.SqlDialect>
/** A connection svc opens itself, or an `SqlClient` layer the host application owns. */
export type DatabaseOptions = Written<typeof S.DatabaseOptions>
export type PolicySnapshotOptions = Written<typeof S.PolicySnapshotOptions>
export type IdentityTokenOptions = Written<typeof S.IdentityTokenOptions>
export type LegalDocumentSnapshotOptions = Written<typeof S.LegalDocumentSnapshotOptions>
export type TransparencyLogOptions = Written<typeof S.TransparencyLogOptions>
export type GvlOptions = Written<typeof S.GvlOptions>
export type IpAddressOptions = Written<typeof S.IpAddressOptions>
export type GeoOptions = Written<typeof S.GeoOptions>
export type OpenApiOptions = Written<typeof S.OpenApiOptions>
export type ScriptOptions = Written<typeof S.ScriptOptions>
export type ManifestCacheOptions = Written<typeof S.ManifestCacheOptions>
export type RequestLogLevel = Written<typeof S.RequestLogLevel>
export type ObservabilityOptions = Written<typeof S.ObservabilityOptions>
/** One route group's limit: `limit` requests per `windowSeconds` (default 60) per client. */
export type RateLimitRule = Written<typeof S.RateLimitRule>
export type RateLimitOptions = Written<typeof S.RateLimitOptions>
export type SessionOptions = Written<typeof S.SessionOptions>
/** Storage limitation: how long proof fields and records are kept (days); each absent one is kept forever. */
export type RetentionOptions = Written<typeof S.RetentionOptions>
/** One webhook endpoint (a fixed option shape): events are POSTed to `url`, signed with `secret` (Standard Webhooks). */
export type WebhookOptions = Written<typeof S.WebhookOptions>
export type EventRetryOptions = Written<typeof S.EventRetryOptions>
export type EventsOptions = Written<typeof S.EventsOptions>
/** `telemetry` (a fixed option shape): OpenTelemetry export and the Prometheus endpoint. Both are off unless written. */
export type TelemetryOptions = Written<typeof S.TelemetryOptions>

/** Options accepted by `defineConfig` (config files) and `svcInstance`. */
export type SvcConfigOptions = Written<typeof S.ConfigOptions>
/** Options of the instance constructor: the config plus what only a running instance uses. */
export type SvcOptions = Written<typeof S.InstanceOptions>
