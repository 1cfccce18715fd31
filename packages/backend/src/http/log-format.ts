import { Cause, HashMap, Layer, Logger } from "effect"
import type { ResolvedConfig } from "../config/resolved.js"

const JWT = /\beyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g
const BEARER = /\b(Bearer|Basic)\s+[^\s"',;]+/gi
const SUBJECT_ID = /\bsub_[A-Za-z0-9_-]+/g

/**
 * Removes what must never reach a log line even when a driver or a defect puts it into a message:
 * the configured API keys, bearer credentials, JWTs (identity, policy snapshot and legal document
 * tokens) and subject ids, which are capabilities.
 */
export const makeScrubber = (apiKeys: ReadonlyArray<string>) => {
  const keys = apiKeys.filter((key) => key !== "").sort((a, b) => b.length - a.length)
  return (text: string): string => {
    let out = text
    for (const key of keys) if (out.includes(key)) out = out.split(key).join("[api-key]")
    return out.replace(JWT, "[token]").replace(BEARER, "$1 [redacted]").replace(SUBJECT_ID, "sub_[redacted]")
  }
}

const scrubValue = (scrub: (text: string) => string, value: unknown, depth = 0): unknown => {
  if (typeof value === "string") return scrub(value)
  if (depth > 4 || value === null || typeof value !== "object") return value
  if (Array.isArray(value)) return value.map((v) => scrubValue(scrub, v, depth + 1))
  if (value instanceof Error) return scrubbedError(scrub, value)
  if (Object.getPrototypeOf(value) !== Object.prototype) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(scrub, v, depth + 1)]))
}

const scrubbedError = (scrub: (text: string) => string, error: Error): Error => {
  const copy = new Error(scrub(error.message))
  copy.name = error.name
  if (error.stack !== undefined) copy.stack = scrub(error.stack)
  return copy
}

/** A cause rendered as text with secrets removed, kept as a defect so every format still shows it. */
const scrubCause = (scrub: (text: string) => string, cause: Cause.Cause<unknown>): Cause.Cause<unknown> => {
  if (Cause.isEmpty(cause)) return cause
  const rendered = new Error(scrub(Cause.pretty(cause, { renderErrorCause: true })))
  rendered.stack = rendered.message
  return Cause.die(rendered)
}

const formatLogger = (format: ResolvedConfig["observability"]["format"]): Logger.Logger<unknown, void> =>
  format === "json"
    ? Logger.withConsoleLog(Logger.jsonLogger)
    : format === "pretty"
    ? Logger.prettyLoggerDefault
    : Logger.withConsoleLog(Logger.logfmtLogger)

/**
 * The logger an svc instance runs with: `observability.format` (`logfmt`, `json` or `pretty`),
 * and every message, annotation and cause passed through the scrubber first.
 */
export const svcLogger = (config: Pick<ResolvedConfig, "apiKeys" | "observability">): Logger.Logger<unknown, void> => {
  const scrub = makeScrubber(config.apiKeys)
  const inner = formatLogger(config.observability.format)
  return Logger.make((options) =>
    inner.log({
      ...options,
      message: scrubValue(scrub, options.message),
      annotations: HashMap.map(options.annotations, (value) => scrubValue(scrub, value)),
      cause: scrubCause(scrub, options.cause)
    })
  )
}

/** Replaces Effect's default logger with the instance's: what `handler` and `svc serve` run with. */
export const svcLoggerLayer = (config: Pick<ResolvedConfig, "apiKeys" | "observability">): Layer.Layer<never> =>
  Logger.replace(Logger.defaultLogger, svcLogger(config))
