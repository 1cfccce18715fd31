import type { TelemetryOptions } from "./schema.js"

export interface ResolvedTelemetry {
  readonly serviceName: string
  readonly otlp: { readonly url: string; readonly headers: Readonly<Record<string, string>> } | undefined
  readonly prometheus: { readonly path: `/${string}` } | undefined
}

/**
 * The `telemetry` block (checked by the options schema) with its defaults, or `undefined` when
 * nothing is exported, in which case no metric is recorded and no tracer runs.
 */
export const resolveTelemetry = (options: typeof TelemetryOptions.Type | undefined): ResolvedTelemetry | undefined => {
  const otlp = options?.otlp && { url: options.otlp.url.replace(/\/+$/, ""), headers: options.otlp.headers ?? {} }
  const prometheus = options?.prometheus && { path: options.prometheus.path ?? "/metrics" }
  if (otlp === undefined && prometheus === undefined) return undefined
  return { serviceName: options?.serviceName ?? "svc", otlp, prometheus }
}
