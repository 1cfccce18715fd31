import { Metric, MetricState, Option } from "effect"
import type { MetricPair } from "effect"

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")
const escapeHelp = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

const labels = (tags: ReadonlyArray<{ readonly key: string; readonly value: string }>, extra?: string) => {
  const parts = tags.map((tag) => `${tag.key}="${escapeLabel(tag.value)}"`)
  if (extra !== undefined) parts.push(extra)
  return parts.length === 0 ? "" : `{${parts.join(",")}}`
}

const num = (value: number | bigint) =>
  typeof value === "bigint"
    ? value.toString()
    : Number.isFinite(value)
    ? String(value)
    : value > 0
    ? "+Inf"
    : value < 0
    ? "-Inf"
    : "NaN"

const typeOf = (state: MetricState.MetricState.Untyped): string | undefined =>
  MetricState.isCounterState(state)
    ? "counter"
    : MetricState.isGaugeState(state)
    ? "gauge"
    : MetricState.isHistogramState(state)
    ? "histogram"
    : undefined

/**
 * svc's metrics (names starting `svc_`) from Effect's registry in the Prometheus text exposition
 * format 0.0.4: one HELP and TYPE per family, histograms as cumulative `_bucket` series with `+Inf`,
 * `_sum` and `_count`. Other metrics in the process (a host application's) are not exposed here.
 */
export const prometheusText = (
  pairs: ReadonlyArray<MetricPair.MetricPair.Untyped> = Metric.unsafeSnapshot()
): string => {
  const families = new Map<string, Array<MetricPair.MetricPair.Untyped>>()
  for (const pair of pairs) {
    const name = pair.metricKey.name
    if (!name.startsWith("svc_") || typeOf(pair.metricState) === undefined) continue
    const family = families.get(name)
    if (family === undefined) families.set(name, [pair])
    else family.push(pair)
  }
  const lines: Array<string> = []
  for (const [name, family] of [...families].sort(([a], [b]) => a.localeCompare(b))) {
    const help = Option.getOrElse(family[0]!.metricKey.description, () => name)
    lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${typeOf(family[0]!.metricState)}`)
    for (const { metricKey, metricState } of family) {
      const tags = metricKey.tags
      if (MetricState.isCounterState(metricState)) lines.push(`${name}${labels(tags)} ${num(metricState.count)}`)
      else if (MetricState.isGaugeState(metricState)) lines.push(`${name}${labels(tags)} ${num(metricState.value)}`)
      else if (MetricState.isHistogramState(metricState)) {
        let sawInf = false
        for (const [boundary, count] of metricState.buckets) {
          if (boundary === Number.POSITIVE_INFINITY) sawInf = true
          lines.push(`${name}_bucket${labels(tags, `le="${num(boundary)}"`)} ${count}`)
        }
        if (!sawInf) lines.push(`${name}_bucket${labels(tags, `le="+Inf"`)} ${metricState.count}`)
        lines.push(
          `${name}_sum${labels(tags)} ${num(metricState.sum)}`,
          `${name}_count${labels(tags)} ${metricState.count}`
        )
      }
    }
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`
}
