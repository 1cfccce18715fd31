import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

/** V8's `gc` function, read once from a fresh context after `--expose-gc` is set. */
let collect: (() => void) | undefined

/**
 * One full collection of V8's heap, now. Node has no API for it: `--expose-gc` set at run time
 * puts `gc` in the contexts made afterwards (not in the main one, which exists already), so a new
 * context hands it over. After a full collection V8 sets the old generation's next limit from
 * the live size and the growth flags of that moment (`records/export-heap.ts` relies on it). It
 * sets a V8 flag of the whole process, so only a process svc owns calls it.
 */
export const fullCollection = (): void => {
  if (collect === undefined) {
    setFlagsFromString("--expose-gc")
    collect = runInNewContext("gc") as () => void
  }
  collect()
}

/**
 * A full collection that also compacts the old generation: every page with free space is
 * evacuated, so what was freed goes back to the system instead of staying as holes in pages V8
 * keeps (after startup an idle server held 25 MB of old space for 17 MB live). Compaction briefly
 * needs memory of its own, so it is for a quiet moment: `svc serve` runs it once, when startup is
 * over (docs/decisions.md, "Memory").
 */
export const compactHeap = (): void => {
  setFlagsFromString("--compact-on-every-full-gc")
  try {
    fullCollection()
  } finally {
    setFlagsFromString("--no-compact-on-every-full-gc")
  }
}
