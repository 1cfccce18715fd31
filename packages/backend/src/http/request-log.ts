import { Effect } from "effect"
import type { RequestLogLevel } from "../config/options.js"

/**
 * Emits one structured event per request through Effect's logger. `warnings` (the default) logs
 * 4xx as warnings and 5xx as errors; `all` also logs successes at info. Callers never put
 * secrets, whole tokens or subject ids into `fields`.
 */
export const logRequest = (level: RequestLogLevel, fields: Record<string, unknown> & { readonly status: number }) => {
  if (level === "none") return Effect.void
  const status = fields.status
  if (status >= 500) return Effect.logError("request").pipe(Effect.annotateLogs(fields))
  if (status >= 400 && level !== "errors") return Effect.logWarning("request").pipe(Effect.annotateLogs(fields))
  if (level === "all") return Effect.logInfo("request").pipe(Effect.annotateLogs(fields))
  return Effect.void
}
