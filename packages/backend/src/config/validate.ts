import { Either, Option, ParseResult, Schema } from "effect"
import { manifestProblems } from "./validate-manifest.js"
import { databaseProblems, withDatabaseProblems } from "./database-options.js"
import { SvcConfigurationError } from "./errors.js"
import { duplicateWebhookIds, resolveEvents } from "./events.js"
import { normalizeOrigin } from "./origins.js"
import { resolveRateLimit } from "./rate-limit.js"
import { DEFAULT_IP_HEADERS, type ResolvedConfig } from "./resolved.js"
import { InstanceOptions } from "./schema.js"
import { resolveTelemetry } from "./telemetry.js"

export { normalizeOrigin } from "./origins.js"

/** Default `version` (`/status`, OpenAPI): this package's version, kept equal to package.json by a test. */
export const PACKAGE_VERSION = "3.0.0-alpha.1"

const strict = { errors: "all", onExcessProperty: "error" } as const
const decodeOptions = Schema.decodeUnknownEither(InstanceOptions, strict)
/** The manifest alone, so its own rules run even when other options are malformed. */
const decodeManifest = Schema.decodeUnknownOption(InstanceOptions.pick("manifest"))

const formatPath = (prefix: string, path: ReadonlyArray<PropertyKey>) =>
  path.reduce<string>(
    (acc, key) => typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`,
    prefix
  )

/** Paths whose values are secrets (or hold them): their problems never quote the value. */
const secretPath =
  /^(apiKeys|database|policySnapshot|identityToken|legalDocumentSnapshot|transparencyLog|telemetry\.otlp\.headers|rateLimit\.store)\b|signingKey|password|secret|token/i

/** The schema's message without the offending value: `Expected string, actual "…"` → `expected string`. */
const withoutValue = (message: string): string =>
  message.replace(/,\s*actual[\s\S]*$/, "").replace(/^Expected /, "expected ")

/** One line per offending path; the alternatives of a literal union are folded into one line. */
const formatIssues = (error: ParseResult.ParseError): Array<string> => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    ...issue,
    at: formatPath("", issue.path)
  }))
  const byPath = new Map<string, Array<string>>()
  for (const issue of issues) {
    const path = issue.at
    // "Expected undefined" is the other arm of an optional field: noise next to the real issue.
    if (issue.message.startsWith("Expected undefined")) continue
    // A union member that got further (issues inside the value) says what is wrong; the other
    // members' "Expected …" lines for the whole value are noise beside it.
    if (
      issue._tag === "Type" && issue.message.startsWith("Expected ") && issues.some((other) => isInside(other.at, path))
    ) continue
    const message = issue._tag === "Unexpected"
      ? "unknown option"
      : secretPath.test(path)
      ? withoutValue(issue.message)
      : issue.message
    byPath.set(path, [...(byPath.get(path) ?? []), message])
  }
  return Array.from(byPath, ([path, messages]) => {
    const expected = messages.map((m) => /^Expected (.+), actual (.+)$/.exec(m))
    const message = messages.length > 1 && expected.every((m) => m !== null)
      ? `expected one of ${expected.map((m) => m![1]).join(", ")} (got ${truncate(expected[0]![2]!)})`
      : messages.map((m) =>
        m.replace(/(, actual )([\s\S]*)$/, (_, lead: string, value: string) => lead + truncate(value))
      ).join("; ")
    return path === "" ? message : `${path}: ${message}`
  })
}

const isInside = (inner: string, outer: string) =>
  inner.length > outer.length && (outer === "" || inner.startsWith(`${outer}.`) || inner.startsWith(`${outer}[`))

const truncate = (value: string) => value.length > 80 ? `${value.slice(0, 77)}...` : value

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Validates options the way the spec's "Instance options" describes, by decoding them with the
 * options schema, and applies the defaults. Throws one `SvcConfigurationError` listing every
 * problem found.
 *
 * @example
 * ```ts
 * import { resolveOptions } from "@svc/backend"
 *
 * // What an instance with these options runs with: every default filled in.
 * const config = resolveOptions({
 *   database: { dialect: "sqlite", url: "./svc.db" },
 *   policySnapshot: { signingKey: process.env.SVC_SNAPSHOT_KEY! }
 * })
 * config.policySnapshot?.ttlSeconds // 1800
 * config.openapi.specPath // "/spec.json"
 * ```
 */
export const resolveOptions = (input: unknown): ResolvedConfig => {
  if (!isRecord(input)) throw new SvcConfigurationError(["options must be an object"])
  const decoded = decodeOptions(input)
  const problems = withDatabaseProblems(
    Either.isLeft(decoded) ? formatIssues(decoded.left) : [],
    databaseProblems(input.database)
  )
  problems.push(...duplicateWebhookIds(input.webhooks))
  const authored = Option.flatMapNullable(decodeManifest(input), (options) => options.manifest)
  if (Option.isSome(authored)) problems.push(...manifestProblems(authored.value))
  if (Either.isLeft(decoded)) throw new SvcConfigurationError(problems)
  const options = decoded.right

  // Rules across blocks; every block on its own has passed the schema.
  const { tenantId } = options
  if (options.requireTenantId === true && tenantId === undefined)
    problems.push("requireTenantId: true, but no tenantId is set")
  const { hosting: _hosting, tenantId: _tenantId, ...manifest } = options.manifest ?? { policyRules: [] }
  let gvl: ResolvedConfig["gvl"]
  if (options.gvl !== undefined && options.gvl.enabled !== false) {
    const endpoint = options.gvl.endpoint ?? manifest.iab?.endpoint
    const source = options.gvl.file !== undefined
      ? { _tag: "File" as const, path: options.gvl.file }
      : endpoint !== undefined
      ? { _tag: "Url" as const, url: endpoint }
      : undefined
    if (source === undefined) problems.push("gvl: needs a source (gvl.file, gvl.endpoint or manifest.iab.endpoint)")
    else {
      gvl = {
        source,
        vendorIds: options.gvl.vendorIds,
        refreshIntervalSeconds: options.gvl.refreshIntervalSeconds ?? 86_400,
        timeoutMs: options.gvl.timeoutMs ?? 10_000
      }
    }
  }
  if (options.telemetry?.prometheus !== undefined && (options.apiKeys ?? []).length === 0) {
    problems.push("telemetry.prometheus: needs apiKeys (GET /metrics answers only to a configured API key)")
  }
  if (problems.length > 0) throw new SvcConfigurationError(problems)

  const basePath = (options.basePath ?? "").replace(/\/+$/, "")
  const database: ResolvedConfig["database"] = "layer" in options.database
    ? { _tag: "Layer", layer: options.database.layer, readLayer: options.database.readLayer }
    : {
      _tag: "Url",
      dialect: options.database.dialect,
      url: options.database.url,
      schema: options.database.schema,
      readUrl: options.database.readUrl,
      maxConnections: options.database.maxConnections
    }
  const ps = options.policySnapshot
  const it = options.identityToken
  const lds = options.legalDocumentSnapshot
  return {
    database,
    basePath,
    trustedOrigins: (options.trustedOrigins ?? []).flatMap((entry) => normalizeOrigin(entry) ?? []),
    tenantId,
    hosting: options.hosting ?? "self-hosted",
    manifest,
    manifestCache: {
      sMaxAge: options.manifestCache?.sMaxAge ?? 300,
      staleWhileRevalidate: options.manifestCache?.staleWhileRevalidate ?? 86_400
    },
    apiKeys: options.apiKeys ?? [],
    policySnapshot: ps && {
      signingKey: ps.signingKey,
      issuer: ps.issuer ?? "svc",
      audience: ps.audience ?? (tenantId === undefined ? "svc-policy" : `svc-policy:${tenantId}`),
      ttlSeconds: ps.ttlSeconds ?? 1800,
      replayWindowSeconds: ps.replayWindowSeconds ?? 604_800
    },
    identityToken: it &&
      { signingKey: it.signingKey, issuer: it.issuer ?? "svc", audience: it.audience ?? "svc-identity" },
    legalDocumentSnapshot: lds && {
      signingKey: lds.signingKey,
      issuer: lds.issuer ?? "svc",
      audience: lds.audience ?? (tenantId === undefined ? "svc-legal" : `svc-legal:${tenantId}`),
      ttlSeconds: lds.ttlSeconds ?? 86_400
    },
    transparencyLog: options.transparencyLog && {
      signingKey: options.transparencyLog.signingKey,
      checkpointIntervalSeconds: options.transparencyLog.checkpointIntervalSeconds ?? 60
    },
    gvl,
    ipAddress: {
      tracking: options.ipAddress?.tracking ?? true,
      masking: options.ipAddress?.masking ?? true,
      headers: (options.ipAddress?.ipAddressHeaders ?? DEFAULT_IP_HEADERS).map((h) => h.toLowerCase())
    },
    geo: options.geo?.database === false
      ? { _tag: "Off" }
      : options.geo?.database === undefined
      ? { _tag: "BuiltIn" }
      : { _tag: "File", path: options.geo.database, checkIntervalSeconds: options.geo.checkIntervalSeconds ?? 60 },
    openapi: {
      enabled: options.openapi?.enabled ?? true,
      specPath: options.openapi?.specPath ?? "/spec.json",
      title: options.openapi?.title ?? "svc consent backend",
      basePath: options.openapi?.basePath ?? basePath
    },
    script: {
      enabled: options.script?.enabled ?? true,
      path: options.script?.path ?? "/svc.js",
      headlessPath: options.script?.headlessPath ?? "/svc.headless.js",
      iabPath: options.script?.iabPath ?? "/svc.iab.js",
      backendURL: options.script?.backendURL?.replace(/\/+$/, ""),
      config: options.script?.config ?? {},
      bundles: options.script?.bundles ?? {}
    },
    version: options.version ?? PACKAGE_VERSION,
    observability: {
      requests: options.observability?.requests ?? "warnings",
      format: options.observability?.format ?? "logfmt"
    },
    sessions: options.sessions ?? {},
    rateLimit: resolveRateLimit(options.rateLimit, tenantId, options.ipAddress?.ipAddressHeaders),
    retention: options.retention,
    consentPartitions: options.consentPartitions ?? "svc",
    events: resolveEvents(options.webhooks, options.events),
    telemetry: resolveTelemetry(options.telemetry)
  }
}
