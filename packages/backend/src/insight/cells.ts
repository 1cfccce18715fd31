import { type Action, countsByAction, type InsightData, isAction, TOP_COUNTRIES } from "./page.js"
import type { CellVisitor } from "./repository.js"

const DAY_MS = 86_400_000
const TOP_EXPERIMENTS = 5

/** The page's totals of a period, summed from its cells' two groupings. */
export interface CellTotals {
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
  decisions: number
  acceptAll: number
}

/**
 * Sums a period's groupings (`InsightRepo.cells`, half-open `[fromMs, toMs)` in whole UTC days) into
 * what the page shows: decisions per day and action, per rule (and how many accepted all), per
 * country (the top ones, then the rest as `other` and those with none as `unknown`), the GPC share
 * and the experiments to summarize. `add` takes each row as the repository reads it, without an
 * object per row; `totals` is what they sum to.
 */
export const cellSums = (
  fromMs: number,
  toMs: number
): { readonly add: CellVisitor; readonly totals: () => CellTotals } => {
  const firstDay = fromMs / DAY_MS
  const byDay: Array<Record<Action, number>> = []
  for (let d = firstDay; d < toMs / DAY_MS; d++) byDay.push(countsByAction(() => 0))
  const rules = new Map<string, Sums>()
  const countries = new Map<string | null, Sums>()
  const experiments = new Map<string, number>()
  const gpc = { decisions: 0, withGpc: 0 }
  const sumsOf = <K>(totals: Map<K, Sums>, key: K): Sums => {
    let entry = totals.get(key)
    if (entry === undefined) totals.set(key, entry = { decisions: 0, acceptAll: 0 })
    return entry
  }
  const add: CellVisitor = {
    day: (day, action, decisions) => {
      const counts = byDay[day - firstDay]
      if (counts !== undefined) counts[isAction(action) ? action : "unknown"] += decisions
    },
    group: (action, policyId, experimentId, country, decisions, withGpc) => {
      const acceptAll = action === "accept_all" ? decisions : 0
      gpc.decisions += decisions
      gpc.withGpc += withGpc
      const rule = sumsOf(rules, policyId ?? "(no rule recorded)")
      rule.decisions += decisions
      rule.acceptAll += acceptAll
      const place = sumsOf(countries, country)
      place.decisions += decisions
      place.acceptAll += acceptAll
      if (experimentId !== null) experiments.set(experimentId, (experiments.get(experimentId) ?? 0) + decisions)
    }
  }
  const totals = (): CellTotals => {
    const known = [...countries].flatMap(([country, totals]) => country === null ? [] : [{ country, ...totals }])
      .sort(byDecisions((entry) => entry.country))
    const rest = known.slice(TOP_COUNTRIES)
    const unknown = countries.get(null)
    return {
      days: byDay.map((counts, i) => ({ day: firstDay + i, counts })),
      rules: [...rules].sort(([a], [b]) => a.localeCompare(b)).map(([policy, totals]) => ({ policy, ...totals })),
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
