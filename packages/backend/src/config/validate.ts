import { ManifestOptions } from "@svc/schema"
import { Either, ParseResult, Schema } from "effect"
import { manifestProblems } from "../policy/validate-manifest.js"
import { databaseProblems, withDatabaseProblems } from "./database-options.js"
import { SvcConfigurationError } from "./errors.js"
import { resolveEvents } from "./events.js"
import { resolveRateLimit } from "./rate-limit.js"
import { resolveTelemetry } from "./telemetry.js"
import type { SvcOptions } from "./options.js"
import { DEFAULT_IP_HEADERS, type ResolvedConfig } from "./resolved.js"
import { OptionsSchema } from "./schema.js"

const MIN_KEY_BYTES = 32
/** Default `version` (`/status`, OpenAPI): this package's version, kept equal to package.json by a test. */
export const PACKAGE_VERSION = "3.0.0-alpha.1"

const strict = { errors: "all", onExcessProperty: "error" } as const

const formatPath = (prefix: string, path: ReadonlyArray<PropertyKey>) =>
  path.reduce<string>(
    (acc, key) => typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`,
    prefix
  )

/** Paths whose values are secrets (or hold them): their problems never quote the value. */
const secretPath = /^(apiKeys|database|policySnapshot|identityToken|legalDocumentSnapshot|telemetry\.otlp\.headers)\b|signingKey|password|secret|token/i

/** The schema's message without the offending value: `Expected string, actual "…"` → `expected string`. */
const withoutValue = (message: string): string =>
  message.replace(/,\s*actual[\s\S]*$/, "").replace(/^Expected /, "expected ")

/** One line per offending path; the alternatives of a literal union are folded into one line. */
const formatIssues = (prefix: string, error: ParseResult.ParseError): Array<string> => {
  const byPath = new Map<string, Array<string>>()
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const path = formatPath(prefix, issue.path)
    // "Expected undefined" is the other arm of an optional field: noise next to the real issue.
    if (issue.message.startsWith("Expected undefined")) continue
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
      : messages.map((m) => m.replace(/(, actual )([\s\S]*)$/, (_, lead: string, value: string) => lead + truncate(value))).join("; ")
    return path === "" ? message : `${path}: ${message}`
  })
}

const truncate = (value: string) => value.length > 80 ? `${value.slice(0, 77)}...` : value

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const byteLength = (s: string) => new TextEncoder().encode(s).length

/** `https://a.example:8443/` → `a.example:8443`; keeps `*` and `*.domain` as written. */
export const normalizeOrigin = (entry: string): string | undefined => {
  const trimmed = entry.trim().toLowerCase()
  if (trimmed === "*") return "*"
  const withoutScheme = trimmed.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").replace(/\/+$/, "")
  return /^(\*\.)?[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:]+\](:\d{1,5})?$/.test(withoutScheme) ? withoutScheme : undefined
}

/**
 * Validates options the way the spec's "Instance options" describes and applies the defaults.
 * Throws one `SvcConfigurationError` listing every problem found.
 */
export const resolveOptions = (input: unknown): ResolvedConfig => {
  if (!isRecord(input)) throw new SvcConfigurationError(["options must be an object"])
  const problems: Array<string> = []
  const decoded = Schema.decodeUnknownEither(OptionsSchema, strict)(input)
  problems.push(...withDatabaseProblems(Either.isLeft(decoded) ? formatIssues("", decoded.left) : [], databaseProblems(input.database)))

  // tenantId: omitted means single-tenant scope; anything else must be a clean, non-empty string.
  let tenantId: string | undefined
  if ("tenantId" in input && input.tenantId !== undefined) {
    const raw = input.tenantId
    if (typeof raw !== "string") problems.push(`tenantId: must be a string (got ${raw === null ? "null" : typeof raw})`)
    else if (raw.trim() === "") problems.push("tenantId: must not be empty")
    else if (raw.trim() !== raw) problems.push("tenantId: must not start or end with white space")
    else if (raw.length > 255) problems.push("tenantId: at most 255 characters")
    else tenantId = raw
  }
  if (input.requireTenantId === true && !("tenantId" in input && input.tenantId !== undefined)) {
    problems.push("requireTenantId: true, but no tenantId is set")
  }
  const hosting = input.hosting ?? "self-hosted"
  if (hosting !== "self-hosted" && hosting !== "managed") {
    problems.push(`hosting: must be "self-hosted" or "managed" (got ${JSON.stringify(hosting)})`)
  }

  let manifest: ManifestOptions = { policyRules: [] }
  if (input.manifest !== undefined) {
    if (!isRecord(input.manifest)) {
      problems.push("manifest: must be an object")
    } else {
      const { tenantId: manifestTenant, hosting: manifestHosting, ...rest } = input.manifest
      if (manifestTenant !== undefined || "tenantId" in input.manifest) {
        problems.push("manifest.tenantId: not supported; set the instance's tenantId instead")
      }
      if (manifestHosting !== undefined || "hosting" in input.manifest) {
        problems.push("manifest.hosting: not supported; set the instance's hosting instead")
      }
      const m = Schema.decodeUnknownEither(ManifestOptions, strict)(rest)
      if (Either.isLeft(m)) problems.push(...formatIssues("manifest", m.left))
      else {
        manifest = m.right
        problems.push(...manifestProblems(manifest))
      }
    }
  }

  const rateLimit = resolveRateLimit(input, tenantId, problems)
  const events = resolveEvents(input, problems)
  const telemetry = resolveTelemetry(input, problems)
  if (Either.isLeft(decoded)) throw new SvcConfigurationError(problems)
  const options = input as unknown as SvcOptions

  for (const block of ["policySnapshot", "identityToken", "legalDocumentSnapshot"] as const) {
    const key = options[block]?.signingKey
    if (key !== undefined && byteLength(key) < MIN_KEY_BYTES) {
      problems.push(`${block}.signingKey: must be at least ${MIN_KEY_BYTES} bytes`)
    }
  }
  options.apiKeys?.forEach((key, i) => {
    if (key.trim() === "" || key.trim() !== key) problems.push(`apiKeys[${i}]: must be a non-empty string without surrounding white space`)
  })
  const trustedOrigins: Array<string> = []
  options.trustedOrigins?.forEach((entry, i) => {
    const normalized = normalizeOrigin(entry)
    if (normalized === undefined) problems.push(`trustedOrigins[${i}]: not a host, host:port, *.domain or * (got ${JSON.stringify(entry)})`)
    else trustedOrigins.push(normalized)
  })
  const basePath = (options.basePath ?? "").replace(/\/+$/, "")
  if (basePath !== "" && !/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/.test(basePath)) {
    problems.push(`basePath: must be a path such as "/api/svc" (got ${JSON.stringify(options.basePath)})`)
  }

  for (const key of Object.keys(options.script?.config ?? {})) {
    if (/secret|signing|api[-_]?key|password|private|token/i.test(key)) {
      problems.push(`script.config.${key}: looks like a secret; script config is sent to every browser`)
    }
  }

  let gvl: ResolvedConfig["gvl"]
  if (options.gvl !== undefined && options.gvl.enabled !== false) {
    const source = options.gvl.file !== undefined
      ? { _tag: "File" as const, path: options.gvl.file }
      : (options.gvl.endpoint ?? manifest.iab?.endpoint) !== undefined
      ? { _tag: "Url" as const, url: (options.gvl.endpoint ?? manifest.iab?.endpoint)! }
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

  if (problems.length > 0) throw new SvcConfigurationError(problems)

  const database: ResolvedConfig["database"] = "layer" in options.database
    ? { _tag: "Layer", layer: options.database.layer }
    : { _tag: "Url", dialect: options.database.dialect, url: options.database.url, schema: options.database.schema }
  const ps = options.policySnapshot
  const it = options.identityToken
  const lds = options.legalDocumentSnapshot
  return {
    database,
    basePath,
    trustedOrigins,
    tenantId,
    hosting: hosting as ResolvedConfig["hosting"],
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
    identityToken: it && { signingKey: it.signingKey, issuer: it.issuer ?? "svc", audience: it.audience ?? "svc-identity" },
    legalDocumentSnapshot: lds && {
      signingKey: lds.signingKey,
      issuer: lds.issuer ?? "svc",
      audience: lds.audience ?? (tenantId === undefined ? "svc-legal" : `svc-legal:${tenantId}`),
      ttlSeconds: lds.ttlSeconds ?? 86_400
    },
    gvl,
    ipAddress: {
      tracking: options.ipAddress?.tracking ?? true,
      masking: options.ipAddress?.masking ?? true,
      headers: (options.ipAddress?.ipAddressHeaders ?? DEFAULT_IP_HEADERS).map((h) => h.toLowerCase())
    },
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
    rateLimit,
    retention: options.retention,
    events,
    telemetry
  }
}
