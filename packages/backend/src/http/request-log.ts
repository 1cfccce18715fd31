import { Effect } from "effect"
import type { RequestLogLevel } from "../config/options.js"

/**
 * Whether a request with this status gets a log event: `warnings` (the default) logs 4xx and 5xx,
 * `errors` only 5xx, `all` everything, `none` nothing.
 */
export const shouldLog = (level: RequestLogLevel, status: number): boolean => {
  switch (level) {
    case "none":
      return false
    case "errors":
      return status >= 500
    case "warnings":
      return status >= 400
    case "all":
      return true
  }
}

/**
 * Emits one structured event per request through Effect's logger: 5xx at error, 4xx at warning,
 * the rest at info, when `shouldLog` says so. Callers never put secrets, whole tokens or subject
 * ids into `fields`.
 */
export const logRequest = (level: RequestLogLevel, fields: Record<string, unknown> & { readonly status: number }) => {
  const status = fields.status
  if (!shouldLog(level, status)) return Effect.void
  const log = status >= 500 ? Effect.logError : status >= 400 ? Effect.logWarning : Effect.logInfo
  return log("request").pipe(Effect.annotateLogs(fields))
}

/** The health probes' paths under the mount prefix. */
export const probePaths = (basePath: string): ReadonlySet<string> =>
  new Set([`${basePath}/health/live`, `${basePath}/health/ready`])

/**
 * The level a request is logged at: probes (every few seconds from each orchestrator) only at
 * `all`, so the default level keeps the log for real traffic; readiness logs its own changes.
 */
export const levelFor = (level: RequestLogLevel, isProbe: boolean): RequestLogLevel =>
  isProbe && level !== "all" ? "none" : level
