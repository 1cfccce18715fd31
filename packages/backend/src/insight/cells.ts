import { type Action, countsByAction, type InsightData, isAction, TOP_COUNTRIES } from "./page.js"
import type { CellRow } from "./repository.js"

const DAY_MS = 86_400_000
const TOP_EXPERIMENTS = 5

/** The page's totals of a period, summed from its cells. */
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

/**
 * Sums a period's cells (`InsightRepo.cells`, half-open `[fromMs, toMs)` in whole UTC days) into what
 * the page shows: decisions per day and action, per rule (and how many accepted all), per country
 * (the top ones, then the rest as `other` and those with none as `unknown`), the GPC share and the
 * experiments to summarize.
 */
export const sumCells = (cells: ReadonlyArray<CellRow>, fromMs: number, toMs: number): CellTotals => {
  const byDay = new Map<number, Record<Action, number>>()
  for (let d = fromMs / DAY_MS; d < toMs / DAY_MS; d++) byDay.set(d, countsByAction(() => 0))
  const rules = new Map<string, { decisions: number; acceptAll: number }>()
  const countries = new Map<string | null, { decisions: number; acceptAll: number }>()
  const experiments = new Map<string, number>()
  const gpc = { decisions: 0, withGpc: 0 }
  const add = <K>(totals: Map<K, { decisions: number; acceptAll: number }>, key: K, cell: CellRow) => {
    const entry = totals.get(key) ?? { decisions: 0, acceptAll: 0 }
    entry.decisions += cell.decisions
    if (cell.action === "accept_all") entry.acceptAll += cell.decisions
    totals.set(key, entry)
  }
  for (const cell of cells) {
    gpc.decisions += cell.decisions
    gpc.withGpc += cell.withGpc
    const counts = byDay.get(cell.day)
    if (counts !== undefined) counts[isAction(cell.action) ? cell.action : "unknown"] += cell.decisions
    add(rules, cell.policyId ?? "(no rule recorded)", cell)
    add(countries, cell.country, cell)
    if (cell.experimentId !== null) {
      experiments.set(cell.experimentId, (experiments.get(cell.experimentId) ?? 0) + cell.decisions)
    }
  }
  const known = [...countries].flatMap(([country, totals]) => country === null ? [] : [{ country, ...totals }])
    .sort(byDecisions((entry) => entry.country))
  const rest = known.slice(TOP_COUNTRIES)
  const unknown = countries.get(null)
  return {
    days: [...byDay].map(([day, counts]) => ({ day, counts })),
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
