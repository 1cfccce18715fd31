import type { SvcOptions } from "@svc/backend"
import { Cause } from "effect"

/** Finds the system error (e.g. ECONNREFUSED) behind Effect's wrappers. */
const systemCode = (error: unknown, depth = 0): string | undefined => {
  if (typeof error !== "object" || error === null || depth > 8) return undefined
  const code = (error as { code?: unknown }).code
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code
  const inner = error as { cause?: unknown; error?: unknown; [key: symbol]: unknown }
  const fiberCause = Object.getOwnPropertySymbols(error).map((symbol) => inner[symbol]).find((value) => typeof value === "object")
  return systemCode(inner.cause, depth + 1) ?? systemCode(inner.error, depth + 1) ??
    (fiberCause === undefined ? undefined : systemCode(Cause.squash(fiberCause as Cause.Cause<unknown>), depth + 1))
}

/** One line for a failure to build the app (database, migrations, services). */
export const describeStartupFailure = (error: unknown, _options: SvcOptions): string => {
  const code = systemCode(error)
  if (code !== undefined) return `could not start (${code})`
  return error instanceof Error && error.message !== "An error has occurred" ? error.message : `could not start: ${String(Cause.isCause(error) ? Cause.pretty(error) : error)}`
}

/** One line for a port that cannot be bound. */
export const listenFailure = (error: unknown, host: string, port: number): string => {
  const code = (error as { code?: unknown } | null)?.code
  if (code === "EADDRINUSE") return `cannot listen on ${host}:${port}: the port is already in use`
  if (code === "EACCES") return `cannot listen on ${host}:${port}: permission denied`
  if (code === "EADDRNOTAVAIL") return `cannot listen on ${host}:${port}: no such address on this machine`
  return `cannot listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}`
}
