import { Context, Effect, type Scope } from "effect"
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

/** How far the old generation may grow past its size after the last collection of an export. */
const OLD_GENERATION_GROWTH = 2 * 1024 * 1024

/** Pages written between two looks at the old generation's size. */
const PAGES_PER_LOOK = 40

/**
 * The least time between two of the export's own collections. Requests served beside an export
 * promote garbage too, and a look every 40 pages then collected far more often: one-consent
 * reads during an export fell from 1,252 to 757 req/s. At most one 15 to 25 ms pause per 2 s.
 */
const MIN_MS_BETWEEN_COLLECTIONS = 2_000

const spaceStatistics = (name: string) => getHeapSpaceStatistics().find((s) => s.space_name === name)
const youngGenerationSize = () => spaceStatistics("new_space")?.space_size ?? 0
const oldGenerationUsed = () => spaceStatistics("old_space")?.space_used_size ?? 0

/**
 * Pages written by the exports holding the heap, the old generation's size that calls a
 * collection, and when the last one ran.
 */
let pagesWritten = 0
let collectAbove = 0
let collectedAt = 0

const collect = () => {
  fullCollection()
  collectAbove = oldGenerationUsed() + OLD_GENERATION_GROWTH
  collectedAt = performance.now()
}

/** What an export tells the heap hold: it wrote a page. */
export interface HeapHold {
  readonly pageWritten: () => void
}

const notHeld: HeapHold = { pageWritten: () => {} }

const held: HeapHold = {
  pageWritten: () => {
    if (
      ++pagesWritten % PAGES_PER_LOOK === 0 && oldGenerationUsed() > collectAbove &&
      performance.now() - collectedAt >= MIN_MS_BETWEEN_COLLECTIONS
    ) collect()
  }
}

/**
 * While a period export runs on a server whose young generation is still small (an idle or
 * lightly used server), V8's heap is kept near its live size; when the last such export ends,
 * V8's defaults are back (young generation growth factor 2, dynamic old-generation growth). The
 * flags are process-wide and read at each collection, so requests served during that export run
 * with them too (measured: no slower; docs/decisions.md, "Memory"). A server whose load already
 * grew its young generation is left alone: there is nothing left to keep small.
 * - Young generation: V8 doubles it each time the bytes that survived its collections since the
 *   last growth pass its size. An export collects thousands of times, so it always passed, and a
 *   server idling with 2 MB of young generation went to V8's largest, two 16 MB semi-spaces
 *   (+31 MB RSS), for good. Growth factor 1 stops growth. A page must then be small enough to die
 *   young (`EXPORT_PAGE_SIZE`).
 * - Old generation: what still survives two collections of a small young generation (the
 *   stream's own state, ~16 bytes per record) is promoted. V8 lets the old generation grow past
 *   its live size by 30% (`--heap-growing-percent=30`) and at least 8 MB before it collects, and
 *   applies a new limit only from its next full collection (the first export after start let it
 *   reach the ~44 MB V8 had set at startup). So the export collects itself: once as it starts,
 *   then whenever the old generation has grown 2 MB past its size after the last collection
 *   (looked at every 40 pages; about every 4 s on a 1M-record export; never within 2 s of the
 *   last one). Compacting collections
 *   were measured too and peaked higher: evacuation needs memory of its own.
 */
export const heapHeldSmall: Effect.Effect<HeapHold, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => {
    if (holders === 0 && youngGenerationSize() > SMALL_YOUNG_GENERATION) return notHeld
    if (holders++ === 0) {
      setFlagsFromString("--semi-space-growth-factor=1")
      setFlagsFromString("--heap-growing-percent=30")
      collect()
    }
    return held
  }),
  (hold) =>
    Effect.sync(() => {
      if (hold === held && --holders === 0) {
        setFlagsFromString("--semi-space-growth-factor=2")
        setFlagsFromString("--heap-growing-percent=0")
      }
    })
)

/** For a server that does not own its process: the export leaves V8's heap alone. */
export const heapUntouched: Effect.Effect<HeapHold> = Effect.succeed(notHeld)
