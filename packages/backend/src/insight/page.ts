import { isOneOf } from "../codec/guards.js"

/*
 * The insight page as plain HTML and inline SVG: no script, no external asset, readable as a
 * document. Every number is also in a table (the chart is labelled and hidden from screen readers
 * in favour of its table). Only aggregates reach it: no subject id, IP or token is ever passed in.
 */

export const ACTIONS = ["accept_all", "reject_all", "custom", "opt_out", "unknown"] as const
export type Action = (typeof ACTIONS)[number]

export const isAction = (value: unknown): value is Action => isOneOf(ACTIONS, value)

/** A number per action, each from `count`. */
export const countsByAction = (count: (action: Action) => number): Record<Action, number> => ({
  accept_all: count("accept_all"),
  reject_all: count("reject_all"),
  custom: count("custom"),
  opt_out: count("opt_out"),
  unknown: count("unknown")
})

const LABELS: Record<Action, string> = {
  accept_all: "Accept all",
  reject_all: "Reject all",
  custom: "Custom",
  opt_out: "Opt-out",
  unknown: "Not recorded"
}
// Each at least 4.5:1 against white.
const COLORS: Record<Action, string> = {
  accept_all: "#1b6e35",
  reject_all: "#b3261e",
  custom: "#1f5fae",
  opt_out: "#6a3fa0",
  unknown: "#5f5f5f"
}

export interface InsightData {
  readonly from: string
  readonly to: string
  readonly domain: string | null
  readonly tenant: string | null
  /** One entry per day of the period (ISO date), zeros included. */
  readonly days: ReadonlyArray<{ readonly date: string; readonly counts: Readonly<Record<Action, number>> }>
  readonly rules: ReadonlyArray<{ readonly policy: string; readonly decisions: number; readonly acceptAll: number }>
  /**
   * The top countries by decisions (ISO 3166-1 alpha-2), then `other` (the rest summed) and
   * `unknown` (saves without a location header), each only when it has decisions.
   */
  readonly countries: ReadonlyArray<
    { readonly country: string; readonly decisions: number; readonly acceptAll: number }
  >
  readonly gpc: { readonly decisions: number; readonly withGpc: number }
  readonly experiments: ReadonlyArray<{
    readonly id: string
    readonly arms: ReadonlyArray<{ readonly arm: string; readonly choices: number; readonly acceptAll: number }>
  }>
  readonly releases: ReadonlyArray<
    { readonly type: string; readonly version: string; readonly effectiveDate: string; readonly publishedAt: string }
  >
}

/** Wilson score interval (95%) of `part` successes in `whole` trials, as fractions. */
export const wilson = (part: number, whole: number): readonly [number, number] => {
  if (whole === 0) return [0, 0]
  const z = 1.959964
  const p = part / whole
  const denominator = 1 + (z * z) / whole
  const centre = (p + (z * z) / (2 * whole)) / denominator
  const half = (z * Math.sqrt((p * (1 - p)) / whole + (z * z) / (4 * whole * whole))) / denominator
  return [Math.max(0, centre - half), Math.min(1, centre + half)]
}

const pct = (f: number) => `${(100 * f).toFixed(1)}%`

const experimentsSection = (experiments: InsightData["experiments"]) =>
  `<section aria-labelledby="exp-h"><h2 id="exp-h">Banner experiments</h2>${
    experiments.length === 0
      ? `<p class="note">No experiment decisions in this period.</p>`
      : experiments.map((e) =>
        `<h3>${escape(e.id)}</h3><div class="scroll"><table data-experiment="${
          escape(e.id)
        }"><thead><tr><th scope="col">Arm</th><th scope="col">Decisions</th><th scope="col">Accept all</th><th scope="col">Accept rate</th><th scope="col">95% interval</th></tr></thead><tbody>${
          e.arms.map((a) => {
            const [low, high] = wilson(a.acceptAll, a.choices)
            return `<tr data-arm="${escape(a.arm)}"><th scope="row">${
              escape(a.arm)
            }</th><td>${a.choices}</td><td>${a.acceptAll}</td><td>${percent(a.acceptAll, a.choices)}</td><td>${
              a.choices === 0 ? "–" : `${pct(low)} – ${pct(high)}`
            }</td></tr>`
          }).join("")
        }</tbody></table></div>`
      ).join("")
  }<p class="note">Intervals are Wilson score intervals of the accept-all rate; arms whose intervals overlap are not shown to differ.</p></section>`

const releasesSection = (releases: InsightData["releases"]) =>
  `<section aria-labelledby="legal-h"><h2 id="legal-h">Latest legal-document releases</h2>${
    releases.length === 0
      ? `<p class="note">No legal document has been published.</p>`
      : `<div class="scroll"><table id="releases"><thead><tr><th scope="col">Document</th><th scope="col">Version</th><th scope="col">Effective</th><th scope="col">Published</th></tr></thead><tbody>${
        releases.map((r) =>
          `<tr><th scope="row">${escape(r.type)}</th><td>${escape(r.version)}</td><td>${
            escape(r.effectiveDate)
          }</td><td>${escape(r.publishedAt)}</td></tr>`
        ).join("")
      }</tbody></table></div>`
  }</section>`

/** Countries shown by name on the page; the rest are summed as one row. */
export const TOP_COUNTRIES = 10
const COUNTRY_LABELS: Record<string, string> = { other: "Other countries", unknown: "Unknown" }

const countriesSection = (countries: InsightData["countries"]) =>
  `<section aria-labelledby="countries-h"><h2 id="countries-h">Accept rate per country</h2>
<div class="scroll"><table id="countries"><thead><tr><th scope="col">Country</th><th scope="col">Decisions</th><th scope="col">Accept all</th><th scope="col">Accept rate</th></tr></thead>
<tbody>${
    countries.length === 0
      ? `<tr><td colspan="4">No decisions in this period.</td></tr>`
      : countries.map((c) =>
        `<tr data-country="${escape(c.country)}"><th scope="row">${
          escape(COUNTRY_LABELS[c.country] ?? c.country)
        }</th><td>${c.decisions}</td><td>${c.acceptAll}</td><td>${percent(c.acceptAll, c.decisions)}</td></tr>`
      ).join("")
  }</tbody></table></div>
<p class="note">The visitor's country as the edge's location headers gave it when the choice was saved; "Unknown" when none was sent. The ${TOP_COUNTRIES} countries with the most decisions are named; the rest are summed as "Other countries".</p>
</section>`

const escape = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

const percent = (part: number, whole: number) => (whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`)

const total = (counts: Readonly<Record<Action, number>>) => ACTIONS.reduce((sum, a) => sum + counts[a], 0)

const STYLE = `
:root{color-scheme:light}*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f6f7f9}
header{background:#14213d;color:#fff;padding:16px 24px}header h1{margin:0;font-size:1.35rem}
header p{margin:4px 0 0;color:#dfe4ee}
main{max-width:1100px;margin:0 auto;padding:16px}
section{background:#fff;border:1px solid #d5d9e0;border-radius:10px;padding:16px 20px;margin:16px 0}
h2{font-size:1.1rem;margin:0 0 12px}h3{font-size:1rem;margin:12px 0 6px}
form.filters{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-end}
label{display:flex;flex-direction:column;font-weight:600;font-size:.9rem}
input{font:inherit;padding:6px 8px;border:1px solid #6b7280;border-radius:6px;min-width:150px}
button{font:inherit;font-weight:600;padding:7px 16px;border:0;border-radius:6px;background:#14213d;color:#fff;cursor:pointer}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.legend{display:flex;flex-wrap:wrap;gap:14px;margin:8px 0 0;padding:0;list-style:none;font-size:.9rem}
.legend span{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:6px;vertical-align:-1px}
.chart{width:100%;height:auto;display:block}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{padding:6px 8px;border-bottom:1px solid #e3e6eb;text-align:right}
th:first-child,td:first-child{text-align:left}
.scroll{overflow-x:auto}
details summary{cursor:pointer;font-weight:600;margin-top:10px}
.kpi{font-size:1.8rem;font-weight:700;margin:0}
.note{color:#4a5160;font-size:.92rem}
`

/**
 * The y-axis of a chart of counts: whole, distinct steps of 1, 2 or 5 times a power of ten, at most
 * five ticks from 0, the top one at or above `max` (it is the scale's top). Thirds or halves of a
 * small maximum would round to repeated labels ("1, 1, 0").
 */
export const countTicks = (max: number): Array<number> => {
  const top = Math.max(1, Math.ceil(max))
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(1, top / 4)))
  const step = [1, 2, 5, 10].map((m) => Math.max(1, m * magnitude)).find((s) => s * 4 >= top) ?? top
  const ticks: Array<number> = []
  for (let tick = 0; tick < top + step; tick += step) ticks.push(tick)
  return ticks
}

const chart = (days: InsightData["days"]) => {
  const width = 1000
  const height = 260
  const left = 48
  const bottom = 28
  const plotW = width - left - 8
  const plotH = height - bottom - 10
  const axis = countTicks(Math.max(0, ...days.map((d) => total(d.counts))))
  const max = axis[axis.length - 1]!
  const step = plotW / Math.max(1, days.length)
  const barW = Math.max(1, step * 0.8)
  const bars: Array<string> = []
  days.forEach((d, i) => {
    let y = 10 + plotH
    for (const action of ACTIONS) {
      const n = d.counts[action]
      if (n === 0) continue
      const h = (n / max) * plotH
      y -= h
      bars.push(
        `<rect x="${(left + i * step + (step - barW) / 2).toFixed(2)}" y="${y.toFixed(2)}" width="${
          barW.toFixed(2)
        }" height="${h.toFixed(2)}" fill="${COLORS[action]}"><title>${d.date} ${LABELS[action]}: ${n}</title></rect>`
      )
    }
  })
  const ticks = axis.map((tick) => {
    const y = (10 + plotH - (tick / max) * plotH).toFixed(2)
    return `<line x1="${left}" x2="${width - 8}" y1="${y}" y2="${y}" stroke="#d5d9e0"/><text class="y-tick" x="${
      left - 6
    }" y="${(Number(y) + 4).toFixed(2)}" text-anchor="end" font-size="12" fill="#333">${tick}</text>`
  })
  const every = Math.max(1, Math.ceil(days.length / 8))
  const labels = days.map((d, i) =>
    i % every === 0
      ? `<text x="${(left + i * step + step / 2).toFixed(2)}" y="${
        height - 8
      }" text-anchor="middle" font-size="12" fill="#333">${d.date.slice(5)}</text>`
      : ""
  )
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="chart-title"><title id="chart-title">Decisions per day, stacked by choice</title>${
    ticks.join("")
  }${bars.join("")}${labels.join("")}</svg>`
}

export const renderInsight = (data: InsightData): string => {
  const totals = countsByAction((a) => data.days.reduce((s, d) => s + d.counts[a], 0))
  const all = total(totals)
  const scope = `${data.from} to ${data.to}${data.domain === null ? ", all domains" : `, ${data.domain}`}${
    data.tenant === null ? "" : `, tenant ${data.tenant}`
  }`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>svc insight: ${escape(scope)}</title><style>${STYLE}</style></head>
<body><header><h1>Consent insight</h1><p>${escape(scope)}</p></header>
<main>
<section aria-labelledby="filters-h"><h2 id="filters-h">Period and domain</h2>
<form class="filters" method="get" action="">
<label for="from">From<input id="from" name="from" type="date" value="${escape(data.from)}" required></label>
<label for="to">To (inclusive)<input id="to" name="to" type="date" value="${escape(data.to)}" required></label>
<label for="domain">Domain<input id="domain" name="domain" type="text" value="${
    escape(data.domain ?? "")
  }" placeholder="all domains"></label>
<button type="submit">Show</button>
</form></section>
<section aria-labelledby="daily-h"><h2 id="daily-h">Decisions per day</h2>
<p class="kpi" id="total-decisions">${all}</p><p class="note">decisions in the period: ${
    ACTIONS.map((a) => `${LABELS[a]} ${totals[a]} (${percent(totals[a], all)})`).join(", ")
  }</p>
<div aria-hidden="true">${chart(data.days)}</div>
<ul class="legend">${
    ACTIONS.map((a) => `<li><span style="background:${COLORS[a]}"></span>${LABELS[a]}</li>`).join("")
  }</ul>
<details><summary>Table of decisions per day</summary><div class="scroll"><table id="daily">
<caption class="note">Decisions per UTC day</caption>
<thead><tr><th scope="col">Day</th>${
    ACTIONS.map((a) => `<th scope="col" data-action="${a}">${LABELS[a]}</th>`).join("")
  }<th scope="col">Total</th></tr></thead>
<tbody>${
    data.days.map((d) =>
      `<tr data-date="${d.date}"><th scope="row">${d.date}</th>${
        ACTIONS.map((a) => `<td data-action="${a}">${d.counts[a]}</td>`).join("")
      }<td>${total(d.counts)}</td></tr>`
    ).join("")
  }</tbody>
</table></div></details></section>
<section aria-labelledby="rules-h"><h2 id="rules-h">Accept rate per policy rule</h2>
<div class="scroll"><table id="rules"><thead><tr><th scope="col">Policy rule</th><th scope="col">Decisions</th><th scope="col">Accept all</th><th scope="col">Accept rate</th></tr></thead>
<tbody>${
    data.rules.length === 0
      ? `<tr><td colspan="4">No decisions in this period.</td></tr>`
      : data.rules.map((r) =>
        `<tr data-policy="${escape(r.policy)}"><th scope="row">${
          escape(r.policy)
        }</th><td>${r.decisions}</td><td>${r.acceptAll}</td><td>${percent(r.acceptAll, r.decisions)}</td></tr>`
      ).join("")
  }</tbody></table></div>
</section>
${countriesSection(data.countries)}
<section aria-labelledby="gpc-h"><h2 id="gpc-h">Global Privacy Control</h2>
<p class="kpi" id="gpc-share">${percent(data.gpc.withGpc, data.gpc.decisions)}</p>
<p class="note">of decisions were made with a GPC signal honoured (${data.gpc.withGpc} of ${data.gpc.decisions}).</p>
</section>
${experimentsSection(data.experiments)}
${releasesSection(data.releases)}
</main></body></html>`
}

export const renderLogin = (message: string | null): string =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>svc insight: sign in</title><style>${STYLE}</style></head>
<body><header><h1>Consent insight</h1><p>Sign in with an API key of this svc instance</p></header>
<main><section aria-labelledby="login-h"><h2 id="login-h">Sign in</h2>
${message === null ? "" : `<p role="alert" class="note">${escape(message)}</p>`}
<form method="post" action="insight/login" class="filters">
<label for="key">API key<input id="key" name="key" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form></section></main></body></html>`
