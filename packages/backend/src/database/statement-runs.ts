/**
 * `items` in runs whose lengths are powers of two, at most `max` (a power of two), longest first.
 * A statement written for a run (`sql.insert` of its rows, an `IN` list of its ids) then has one of
 * log2(max) + 1 texts, which the driver prepares once and keeps in its statement cache; a run of
 * any length would make a new text for most batches, parsed and planned anew each time.
 *
 * @example
 * ```ts
 * import { powerOfTwoRuns } from "./statement-runs.js"
 *
 * powerOfTwoRuns([1, 2, 3, 4, 5, 6, 7], 4) // [[1, 2, 3, 4], [5, 6], [7]]
 * ```
 */
export const powerOfTwoRuns = <A>(items: ReadonlyArray<A>, max: number): Array<ReadonlyArray<A>> => {
  const runs: Array<ReadonlyArray<A>> = []
  let size = max
  for (let start = 0; start < items.length; start += size) {
    while (size > items.length - start) size /= 2
    runs.push(items.slice(start, start + size))
  }
  return runs
}
