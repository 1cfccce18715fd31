/** `telemetry` (DESIGN.md): OpenTelemetry export and the Prometheus endpoint. Both are off unless written. */
export interface TelemetryOptions {
  /** `service.name` of exported traces and metrics. Default `svc`. */
  readonly serviceName?: string
  /** OTLP/HTTP collector: traces go to `{url}/v1/traces`, metrics to `{url}/v1/metrics`. */
  readonly otlp?: {
    readonly url: string
    /** Sent with every export (for example an authorization header); never logged. */
    readonly headers?: Readonly<Record<string, string>>
  }
  /** `GET {path}` (default `/metrics`) in the Prometheus text format, for a configured API key. */
  readonly prometheus?: { readonly path?: string }
}

export interface ResolvedTelemetry {
  readonly serviceName: string
  readonly otlp: { readonly url: string; readonly headers: Readonly<Record<string, string>> } | undefined
  readonly prometheus: { readonly path: string } | undefined
}

/**
 * The `telemetry` block with its defaults, or `undefined` when nothing is exported, in which case
 * no metric is recorded and no tracer runs. Structure is checked by the options schema; this adds
 * the rules across fields. Header values are never repeated in a problem.
 */
export const resolveTelemetry = (
  input: { readonly telemetry?: unknown; readonly apiKeys?: unknown },
  problems: Array<string>
): ResolvedTelemetry | undefined => {
  const options = input.telemetry as TelemetryOptions | undefined
  if (options === undefined || options === null || typeof options !== "object") return undefined
  let otlp: ResolvedTelemetry["otlp"]
  if (options.otlp !== undefined && typeof options.otlp?.url === "string") {
    let url: URL | undefined
    try {
      url = new URL(options.otlp.url)
    } catch {
      url = undefined
    }
    if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
      problems.push("telemetry.otlp.url: expected an http: or https: URL of an OTLP/HTTP collector")
    } else {
      otlp = { url: options.otlp.url.replace(/\/+$/, ""), headers: options.otlp.headers ?? {} }
    }
  }
  let prometheus: ResolvedTelemetry["prometheus"]
  if (options.prometheus !== undefined && options.prometheus !== null) {
    const keys = Array.isArray(input.apiKeys) ? input.apiKeys : []
    if (keys.length === 0) {
      problems.push("telemetry.prometheus: needs apiKeys (GET /metrics answers only to a configured API key)")
    }
    prometheus = { path: options.prometheus.path ?? "/metrics" }
  }
  if (otlp === undefined && prometheus === undefined) return undefined
  const serviceName = options.serviceName ?? "svc"
  return { serviceName, otlp, prometheus }
}
