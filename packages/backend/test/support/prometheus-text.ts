/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests: it throws on any line
 * a Prometheus server would reject (bad names, label syntax or escapes, values, a TYPE after its
 * samples or given twice, a family split in two, histogram buckets that are not cumulative or do
 * not end at `+Inf` equal to `_count`).
 */
export interface PromSample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface PromExposition {
  readonly types: ReadonlyMap<string, string>
  readonly helps: ReadonlyMap<string, string>
  readonly samples: ReadonlyArray<PromSample>
}

const METRIC = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"])

const parseValue = (text: string, line: number): number => {
  if (text === "+Inf") return Number.POSITIVE_INFINITY
  if (text === "-Inf") return Number.NEGATIVE_INFINITY
  if (text === "NaN") return Number.NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`line ${line}: bad value ${text}`)
  return Number(text)
}

const parseLabels = (text: string, line: number): Record<string, string> => {
  const labels: Record<string, string> = {}
  let i = 0
  while (i < text.length) {
    const eq = text.indexOf("=", i)
    if (eq === -1) throw new Error(`line ${line}: label without '='`)
    const name = text.slice(i, eq)
    if (!LABEL.test(name) || name in labels) throw new Error(`line ${line}: bad or repeated label name ${name}`)
    if (text[eq + 1] !== '"') throw new Error(`line ${line}: label value not quoted`)
    let value = ""
    let j = eq + 2
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === "\\") {
        const next = text[++j]
        if (next === "\\") value += "\\"
        else if (next === '"') value += '"'
        else if (next === "n") value += "\n"
        else throw new Error(`line ${line}: bad escape`)
      } else value += text[j]
    }
    if (j >= text.length) throw new Error(`line ${line}: unterminated label value`)
    labels[name] = value
    i = j + 1
    if (i < text.length) {
      if (text[i] !== ",") throw new Error(`line ${line}: expected ',' between labels`)
      i++
    }
  }
  return labels
}

const familyOf = (name: string, types: ReadonlyMap<string, string>) => {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    const base = name.slice(0, -suffix.length)
    if (name.endsWith(suffix) && (types.get(base) === "histogram" || types.get(base) === "summary")) return base
  }
  return name
}

export const parsePrometheusText = (text: string): PromExposition => {
  if (text !== "" && !text.endsWith("\n")) throw new Error("exposition must end with a newline")
  const types = new Map<string, string>()
  const helps = new Map<string, string>()
  const samples: Array<PromSample> = []
  const closed = new Set<string>()
  let current: string | undefined
  text.split("\n").slice(0, -1).forEach((raw, index) => {
    const line = index + 1
    if (raw.trim() === "") return
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw)
    if (meta !== null) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string]
      if (!METRIC.test(name)) throw new Error(`line ${line}: bad metric name ${name}`)
      if (kind === "TYPE") {
        if (!TYPES.has(rest)) throw new Error(`line ${line}: bad type ${rest}`)
        if (types.has(name) || closed.has(name) || samples.some((s) => familyOf(s.name, types) === name)) {
          throw new Error(`line ${line}: TYPE for ${name} repeated or after its samples`)
        }
        types.set(name, rest)
      } else {
        if (helps.has(name)) throw new Error(`line ${line}: HELP for ${name} repeated`)
        helps.set(name, rest)
      }
      return
    }
    if (raw.startsWith("#")) return
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(raw)
    if (sample === null) throw new Error(`line ${line}: not a sample: ${raw}`)
    const [, name, labelText, valueText] = sample as unknown as [string, string, string | undefined, string]
    const family = familyOf(name, types)
    if (family !== current) {
      if (current !== undefined) closed.add(current)
      if (closed.has(family)) throw new Error(`line ${line}: samples of ${family} are not together`)
      current = family
    }
    samples.push({
      name,
      labels: labelText === undefined ? {} : parseLabels(labelText, line),
      value: parseValue(valueText, line)
    })
  })
  checkHistograms(types, samples)
  return { types, helps, samples }
}

const checkHistograms = (types: ReadonlyMap<string, string>, samples: ReadonlyArray<PromSample>) => {
  for (const [family, type] of types) {
    if (type !== "histogram") continue
    const series = new Map<string, Array<PromSample>>()
    for (const s of samples) {
      if (s.name !== `${family}_bucket`) continue
      const { le, ...rest } = s.labels
      if (le === undefined) throw new Error(`${family}: bucket without le`)
      const key = JSON.stringify(rest)
      series.set(key, [...(series.get(key) ?? []), s])
    }
    for (const [key, buckets] of series) {
      for (let i = 1; i < buckets.length; i++) {
        if (buckets[i]!.value < buckets[i - 1]!.value) throw new Error(`${family}${key}: buckets not cumulative`)
      }
      const last = buckets[buckets.length - 1]!
      const count = samples.find((s) => s.name === `${family}_count` && JSON.stringify(s.labels) === key)
      if (last.labels.le !== "+Inf" || count === undefined || count.value !== last.value) {
        throw new Error(`${family}${key}: last bucket must be +Inf and equal _count`)
      }
    }
  }
}
