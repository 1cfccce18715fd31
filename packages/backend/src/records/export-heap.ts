import { Context, Effect } from "effect"
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8"
import { fullCollection } from "../instance/process-heap.js"

/**
 * Whether svc may set V8's heap flags of the process while a period export runs: only a server
 * that owns its process says so (`svc serve`, `startServer`, through `SvcLayerOptions.tuneHeap`).
 * A host composing svc into its own app keeps its heap as it configured it.
 */
export class HeapTuning extends Context.Reference<HeapTuning>()("@svc/backend/HeapTuning", {
  defaultValue: () => false
}) {}

/** Period exports running now that hold the heap (see `heapHeldSmall`). */
let holders = 0

/** A young generation at most this big (both semi-spaces) has not been grown by load yet. */
const SMALL_YOUNG_GENERATION = 8 * 1024 * 1024

const youngGenerationSize = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0

/**
 * While a period export runs on a server whose young generation is still small (an idle or
 * lightly used server), V8's heap is kept near its live size; when the last such export ends,
 * V8's defaults are back (young generation growth factor 2, dynamic old-generation growth). Both
 * flags are process-wide and read at each collection, so requests served during that export run
 * with them too (measured: no slower; docs/decisions.md, "Memory"). A server whose load already
 * grew its young generation is left alone: there is nothing left to keep small.
 * - Young generation: V8 doubles it each time the bytes that survived its collections since the
 *   last growth pass its size. An export collects thousands of times, so it always passed, and a
 *   server idling with 2 MB of young generation went to V8's largest, two 16 MB semi-spaces
 *   (+31 MB RSS), for good. Growth factor 1 stops growth. A page must then be small enough to die
 *   young (`EXPORT_PAGE_SIZE`).
 * - Old generation: what still survives two collections of a small young generation (the
 *   stream's own state) is promoted, and V8 let the old generation grow to about four times its
 *   live size (~85 MB) before a full collection. `--heap-growing-percent=30` sets each next limit
 *   to live + 30% (V8 adds at least 8 MB). V8 applies it from its next full collection on, so the
 *   export starts with one (`fullCollection`); before, the old generation first grew to the
 *   limit V8 had set at startup (~44 MB), 10 to 17 MB of RSS more. A compacting collection there
 *   was measured too and peaked higher (its evacuation needs memory of its own).
 */
export const heapHeldSmall = Effect.acquireRelease(
  Effect.sync(() => {
    if (holders === 0 && youngGenerationSize() > SMALL_YOUNG_GENERATION) return false
    if (holders++ === 0) {
      setFlagsFromString("--semi-space-growth-factor=1")
      setFlagsFromString("--heap-growing-percent=30")
      fullCollection()
    }
    return true
  }),
  (held) =>
    Effect.sync(() => {
      if (held && --holders === 0) {
        setFlagsFromString("--semi-space-growth-factor=2")
        setFlagsFromString("--heap-growing-percent=0")
      }
    })
)
