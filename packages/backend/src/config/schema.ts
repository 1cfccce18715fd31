import { ManifestOptions } from "@svc/schema"
import { Layer, Schema } from "effect"

/*
 * The structural shape of the options, used only to validate what a user wrote (unknown keys,
 * wrong types). Defaults are applied in `resolve.ts`; cross-field rules live in `validate.ts`.
 */

const Fn = Schema.declare((u): u is (...args: ReadonlyArray<unknown>) => unknown => typeof u === "function", {
  identifier: "function"
})
const AnyLayer = Schema.declare((u): u is Layer.Layer<unknown, unknown, unknown> => Layer.isLayer(u), {
  identifier: "Layer"
})
const Seconds = Schema.Int.pipe(Schema.nonNegative())
const Path = Schema.String.pipe(Schema.startsWith("/"))
/** A retention window: whole days, at least one, at most a hundred years. */
const RetentionDays = Schema.Int.pipe(Schema.between(1, 36_500))

export const DatabaseOptionsSchema = Schema.Union(
  Schema.Struct({
    dialect: Schema.Literal("sqlite", "postgres", "mysql"),
    url: Schema.String.pipe(Schema.minLength(1)),
    schema: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/)))
  }),
  Schema.Struct({ layer: AnyLayer })
)

const RateLimitRule = Schema.Struct({
  limit: Schema.Int.pipe(Schema.positive()),
  windowSeconds: Schema.optional(Schema.Int.pipe(Schema.positive()))
})

const SigningFields = {
  signingKey: Schema.String,
  issuer: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  audience: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
}

export const OptionsSchema = Schema.Struct({
  database: DatabaseOptionsSchema,
  basePath: Schema.optional(Schema.String),
  trustedOrigins: Schema.optional(Schema.Array(Schema.String)),
  tenantId: Schema.optional(Schema.Unknown),
  requireTenantId: Schema.optional(Schema.Boolean),
  hosting: Schema.optional(Schema.Unknown),
  manifest: Schema.optional(Schema.Unknown),
  manifestCache: Schema.optional(Schema.Struct({
    sMaxAge: Schema.optional(Seconds),
    staleWhileRevalidate: Schema.optional(Seconds)
  })),
  apiKeys: Schema.optional(Schema.Array(Schema.String)),
  policySnapshot: Schema.optional(Schema.Struct({
    ...SigningFields,
    ttlSeconds: Schema.optional(Schema.Int.pipe(Schema.positive())),
    replayWindowSeconds: Schema.optional(Seconds)
  })),
  identityToken: Schema.optional(Schema.Struct(SigningFields)),
  legalDocumentSnapshot: Schema.optional(Schema.Struct({
    ...SigningFields,
    ttlSeconds: Schema.optional(Schema.Int.pipe(Schema.positive()))
  })),
  gvl: Schema.optional(Schema.Struct({
    enabled: Schema.optional(Schema.Boolean),
    endpoint: Schema.optional(Schema.String.pipe(Schema.pattern(/^https?:\/\//))),
    file: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
    vendorIds: Schema.optional(Schema.Array(Schema.Int.pipe(Schema.positive()))),
    refreshIntervalSeconds: Schema.optional(Schema.Int.pipe(Schema.positive())),
    timeoutMs: Schema.optional(Schema.Int.pipe(Schema.positive()))
  })),
  ipAddress: Schema.optional(Schema.Struct({
    tracking: Schema.optional(Schema.Boolean),
    masking: Schema.optional(Schema.Boolean),
    ipAddressHeaders: Schema.optional(Schema.Array(Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9-]+$/))))
  })),
  openapi: Schema.optional(Schema.Struct({
    enabled: Schema.optional(Schema.Boolean),
    specPath: Schema.optional(Path),
    title: Schema.optional(Schema.String),
    basePath: Schema.optional(Schema.String)
  })),
  script: Schema.optional(Schema.Struct({
    enabled: Schema.optional(Schema.Boolean),
    path: Schema.optional(Path),
    headlessPath: Schema.optional(Path),
    iabPath: Schema.optional(Path),
    backendURL: Schema.optional(Schema.String.pipe(Schema.pattern(/^(https?:\/\/|\/)/))),
    config: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
    bundles: Schema.optional(Schema.Struct({
      full: Schema.optional(Schema.String),
      headless: Schema.optional(Schema.String),
      iab: Schema.optional(Schema.String)
    }))
  })),
  retention: Schema.optional(Schema.Struct({
    ipAddressDays: Schema.optional(RetentionDays),
    userAgentDays: Schema.optional(RetentionDays),
    recordDays: Schema.optional(RetentionDays),
    intervalMinutes: Schema.optional(Schema.Int.pipe(Schema.between(1, 10_080)))
  })),
  rateLimit: Schema.optional(Schema.Struct({
    // Checked in `rate-limit.ts`, which never repeats the URL (it may hold a password).
    store: Schema.optional(Schema.Unknown),
    publicWrites: Schema.optional(Schema.Union(RateLimitRule, Schema.Literal(false))),
    admin: Schema.optional(Schema.Union(RateLimitRule, Schema.Literal(false))),
    init: Schema.optional(RateLimitRule),
    manifest: Schema.optional(RateLimitRule),
    scripts: Schema.optional(RateLimitRule)
  })),
  // Checked in `events.ts`, which never repeats a secret.
  webhooks: Schema.optional(Schema.Array(Schema.Struct({
    id: Schema.String,
    url: Schema.String,
    secret: Schema.String,
    events: Schema.optional(Schema.Array(Schema.String))
  }))),
  events: Schema.optional(Schema.Struct({
    nats: Schema.optional(Schema.Struct({ servers: Schema.Union(Schema.String, Schema.Array(Schema.String)), subject: Schema.String })),
    sinks: Schema.optional(AnyLayer),
    delivery: Schema.optional(Schema.Struct({
      enabled: Schema.optional(Schema.Boolean),
      pollIntervalMs: Schema.optional(Schema.Number),
      timeoutMs: Schema.optional(Schema.Number),
      leaseMs: Schema.optional(Schema.Number),
      batchSize: Schema.optional(Schema.Number),
      keepDeliveredMs: Schema.optional(Schema.Number),
      retry: Schema.optional(Schema.Struct({
        baseDelayMs: Schema.optional(Schema.Number),
        maxDelayMs: Schema.optional(Schema.Number),
        giveUpAfterMs: Schema.optional(Schema.Number)
      }))
    }))
  })),
  // Cross-field rules in `telemetry.ts`; header values are never repeated (they may hold tokens).
  telemetry: Schema.optional(Schema.Struct({
    serviceName: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
    otlp: Schema.optional(Schema.Struct({
      url: Schema.String,
      headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
    })),
    prometheus: Schema.optional(Schema.Struct({ path: Schema.optional(Path) }))
  })),
  version: Schema.optional(Schema.String),
  observability: Schema.optional(Schema.Struct({
    requests: Schema.optional(Schema.Literal("all", "warnings", "errors", "none")),
    format: Schema.optional(Schema.Literal("logfmt", "json", "pretty"))
  })),
  sessions: Schema.optional(Schema.Struct({ onReport: Schema.optional(Fn) }))
})

export { ManifestOptions }
