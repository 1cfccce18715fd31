import type { SqlClient } from "@effect/sql"
import type { Hosting, ManifestOptions } from "@svc/schema"
import { Context, type Layer } from "effect"
import type { ResolvedEvents } from "./events.js"
import type {
  ObservabilityOptions,
  RequestLogLevel,
  RetentionOptions,
  ScriptOptions,
  SessionOptions,
  SqlDialect
} from "./options.js"
import type { ResolvedTelemetry } from "./telemetry.js"

/**
 * Configuration after validation, with every default applied. The only way services read options.
 *
 * @example
 * ```ts
 * import { resolveOptions, type ResolvedConfig } from "@svc/backend"
 *
 * // A startup line saying what the instance will do, without printing a secret.
 * const describe = (config: ResolvedConfig) =>
 *   `tenant ${config.tenantId ?? "(none)"}, ${config.manifest.policyRules.length} policy rules, ` +
 *   `policy snapshots ${config.policySnapshot === undefined ? "off" : `valid ${config.policySnapshot.ttlSeconds} s`}`
 *
 * console.log(describe(resolveOptions({ database: { dialect: "sqlite", url: "./svc.db" }, tenantId: "shop-eu" })))
 * ```
 */
export interface ResolvedConfig {
  readonly database:
    | {
      readonly _tag: "Url"
      readonly dialect: SqlDialect
      readonly url: string
      readonly schema: string | undefined
      /** Where exports, the insight page and experiment summaries read; `undefined`: `url`. */
      readonly readUrl?: string | undefined
      /** The most connections each of svc's pools holds (Postgres, MySQL); `undefined`: 10. */
      readonly maxConnections?: number | undefined
    }
    | {
      readonly _tag: "Layer"
      readonly layer: Layer.Layer<SqlClient.SqlClient, unknown>
      readonly readLayer?: Layer.Layer<SqlClient.SqlClient, unknown> | undefined
    }
  /** Mount prefix without a trailing slash; `""` when mounted at the root. */
  readonly basePath: string
  readonly trustedOrigins: ReadonlyArray<string>
  /** The instance's tenant, or `undefined` for single-tenant scope. */
  readonly tenantId: string | undefined
  readonly hosting: Hosting
  readonly manifest: ManifestOptions
  readonly manifestCache: { readonly sMaxAge: number; readonly staleWhileRevalidate: number }
  readonly apiKeys: ReadonlyArray<string>
  readonly policySnapshot: {
    readonly signingKey: string
    readonly issuer: string
    readonly audience: string
    readonly ttlSeconds: number
    readonly replayWindowSeconds: number
  } | undefined
  readonly identityToken:
    | { readonly signingKey: string; readonly issuer: string; readonly audience: string }
    | undefined
  readonly legalDocumentSnapshot: {
    readonly signingKey: string
    readonly issuer: string
    readonly audience: string
    readonly ttlSeconds: number
  } | undefined
  /** The transparency log; `undefined` when no signing key is configured (no log is kept). */
  readonly transparencyLog: { readonly signingKey: string; readonly checkpointIntervalSeconds: number } | undefined
  readonly gvl: {
    readonly source: { readonly _tag: "File"; readonly path: string } | { readonly _tag: "Url"; readonly url: string }
    readonly vendorIds: ReadonlyArray<number> | undefined
    readonly refreshIntervalSeconds: number
    readonly timeoutMs: number
  } | undefined
  readonly ipAddress: {
    readonly tracking: boolean
    readonly masking: boolean
    readonly headers: ReadonlyArray<string>
  }
  /** IP location lookup: the built-in table, an operator's MaxMind-format file, or none. */
  readonly geo:
    | { readonly _tag: "BuiltIn" }
    | { readonly _tag: "File"; readonly path: string; readonly checkIntervalSeconds: number }
    | { readonly _tag: "Off" }
  readonly openapi: {
    readonly enabled: boolean
    readonly specPath: `/${string}`
    readonly title: string
    readonly basePath: string
  }
  readonly script: {
    readonly enabled: boolean
    readonly path: `/${string}`
    readonly headlessPath: `/${string}`
    readonly iabPath: `/${string}`
    readonly backendURL: string | undefined
    readonly config: Readonly<Record<string, unknown>>
    readonly bundles: NonNullable<ScriptOptions["bundles"]>
  }
  /** `undefined` when `rateLimit` is not configured: nothing is limited. */
  readonly rateLimit: ResolvedRateLimit | undefined
  /** `retention` as given: each absent window keeps forever; `intervalMinutes` defaults to 60. */
  readonly retention: RetentionOptions | undefined
  /** Who makes `svc_consents`' monthly partitions ahead on PostgreSQL (`consentPartitions`, default `"svc"`). */
  readonly consentPartitions: "svc" | "external"
  /** Webhooks, the NATS sink, custom sinks and delivery settings (`webhooks` and `events`). */
  readonly events: ResolvedEvents
  /** `undefined` when `telemetry` exports nothing: no metric is recorded and no tracer runs. */
  readonly telemetry: ResolvedTelemetry | undefined
  readonly version: string
  readonly observability: {
    readonly requests: RequestLogLevel
    readonly format: NonNullable<ObservabilityOptions["format"]>
  }
  readonly sessions: SessionOptions
}

/** `limit` requests per `windowSeconds`, per client. */
export interface ResolvedRateRule {
  readonly limit: number
  readonly windowSeconds: number
}

export type RateLimitGroup = "publicWrites" | "admin" | "init" | "manifest" | "scripts"

export interface ResolvedRateLimit {
  readonly store:
    | { readonly _tag: "Memory" }
    | { readonly _tag: "Redis"; readonly url: string; readonly keyPrefix: string }
  /** Groups that are limited; a group absent here is not. */
  readonly rules: Partial<Record<RateLimitGroup, ResolvedRateRule>>
  /**
   * Headers the client IP may be read from for limiting: only those the operator listed in
   * `ipAddress.ipAddressHeaders`. The default list is not trusted here, since any client can send it.
   */
  readonly trustedIpHeaders: ReadonlyArray<string>
}

/**
 * The resolved configuration of one svc instance: the Effect service every svc service reads its
 * options from. Provide it (from `resolveOptions`) to build one of svc's services on its own.
 *
 * @example
 * ```ts
 * import { PolicyManifest, resolveOptions, SvcConfig } from "@svc/backend"
 * import { Effect, Layer } from "effect"
 *
 * // The manifest needs no database: only the configuration.
 * const config = resolveOptions({
 *   database: { dialect: "sqlite", url: ":memory:" },
 *   manifest: { policyRules: [{ id: "eu", match: { countries: ["DE"] }, model: "opt-in", categories: ["marketing"] }] }
 * })
 * const revision = Effect.map(PolicyManifest, (manifest) => manifest.revision).pipe(
 *   Effect.provide(PolicyManifest.Default),
 *   Effect.provide(Layer.succeed(SvcConfig, config))
 * )
 * ```
 */
export class SvcConfig extends Context.Tag("@svc/backend/SvcConfig")<SvcConfig, ResolvedConfig>() {}

export const DEFAULT_IP_HEADERS = [
  "cf-connecting-ip",
  "true-client-ip",
  "x-real-ip",
  "x-forwarded-for",
  "x-vercel-forwarded-for",
  "fly-client-ip"
] as const

/**
 * Largest request body accepted on any route, in bytes (128 KiB, documented in the README); a
 * larger one is answered `413 PAYLOAD_TOO_LARGE`.
 *
 * @example
 * ```ts
 * import { MAX_BODY_BYTES, svcInstance } from "@svc/backend"
 * import { svcNode } from "@svc/backend/node"
 * import express from "express"
 *
 * const app = express()
 * // A body parser in front of svc must let through every body svc itself accepts.
 * app.use(express.json({ limit: MAX_BODY_BYTES }))
 * app.use("/consent", svcNode(svcInstance({ database: { dialect: "sqlite", url: "./svc.db" }, basePath: "/consent" })))
 * ```
 */
export const MAX_BODY_BYTES = 128 * 1024
