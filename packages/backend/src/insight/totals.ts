import { type Action, countsByAction, type InsightData, isAction, TOP_COUNTRIES } from "./page.js"
import type { TotalsVisitor } from "./repository.js"

const DAY_MS = 86_400_000
const TOP_EXPERIMENTS = 5

/** The page's totals of a period, as it shows them. */
export interface PeriodTotals {
  /** Every UTC day of the period (whole days since the epoch), zeros included, in order. */
  readonly days: ReadonlyArray<{ readonly day: number; readonly counts: Readonly<Record<Action, number>> }>
  readonly rules: InsightData["rules"]
  readonly countries: InsightData["countries"]
  readonly gpc: InsightData["gpc"]
  /** The experiments with the most decisions (at most five), most first, ties by id. */
  readonly experiments: ReadonlyArray<string>
}

const byDecisions = <T extends { readonly decisions: number }>(key: (entry: T) => string) => (a: T, b: T) =>
  b.decisions - a.decisions || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)

interface Sums {
  readonly decisions: number
  readonly acceptAll: number
}

/**
 * Collects a period's totals (`InsightRepo.totals`, half-open `[fromMs, toMs)` in whole UTC days)
 * into what the page shows: decisions per day and action (zeros included), per rule sorted by id,
 * per country (the top ones, then the rest as `other` and those with none as `unknown`), the GPC
 * share and the experiments to summarize. `add` takes each row as the repository reads it;
 * `totals` is what they come to.
 */
export const periodTotals = (
  fromMs: number,
  toMs: number
): { readonly add: TotalsVisitor; readonly totals: () => PeriodTotals } => {
  const firstDay = fromMs / DAY_MS
  const byDay: Array<Record<Action, number>> = []
  for (let d = firstDay; d < toMs / DAY_MS; d++) byDay.push(countsByAction(() => 0))
  const rules = new Map<string | null, Sums>()
  const countries = new Map<string | null, Sums>()
  const experiments = new Map<string, number>()
  const gpc = { decisions: 0, withGpc: 0 }
  const add: TotalsVisitor = {
    day: (day, action, decisions) => {
      const counts = byDay[day - firstDay]
      if (counts !== undefined) counts[isAction(action) ? action : "unknown"] += decisions
    },
    rule: (policyId, decisions, acceptAll) => rules.set(policyId, { decisions, acceptAll }),
    country: (country, decisions, acceptAll) => countries.set(country, { decisions, acceptAll }),
    experiment: (experimentId, decisions) => experiments.set(experimentId, decisions),
    gpc: (decisions, withGpc) => {
      gpc.decisions = decisions
      gpc.withGpc = withGpc
    }
  }
  const totals = (): PeriodTotals => {
    const known = [...countries].flatMap(([country, totals]) => country === null ? [] : [{ country, ...totals }])
      .sort(byDecisions((entry) => entry.country))
    const rest = known.slice(TOP_COUNTRIES)
    const unknown = countries.get(null)
    return {
      days: byDay.map((counts, i) => ({ day: firstDay + i, counts })),
      rules: [...rules].map(([policy, totals]) => ({ policy: policy ?? "(no rule recorded)", ...totals }))
        .sort((a, b) => a.policy.localeCompare(b.policy)),
      countries: [
        ...known.slice(0, TOP_COUNTRIES),
        ...(rest.length === 0 ? [] : [{
          country: "other",
          decisions: rest.reduce((sum, entry) => sum + entry.decisions, 0),
          acceptAll: rest.reduce((sum, entry) => sum + entry.acceptAll, 0)
        }]),
        ...(unknown === undefined ? [] : [{ country: "unknown", ...unknown }])
      ],
      gpc,
      experiments: [...experiments].map(([id, decisions]) => ({ id, decisions })).sort(byDecisions((entry) => entry.id))
        .slice(0, TOP_EXPERIMENTS).map((entry) => entry.id)
    }
  }
  return { add, totals }
}
