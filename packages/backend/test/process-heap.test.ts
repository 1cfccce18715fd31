import { getHeapSpaceStatistics } from "node:v8"
import { describe, expect, it } from "vitest"
import { compactHeap, fullCollection } from "../src/instance/process-heap.js"

const MB = 1024 * 1024
const oldSpace = () => {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === "old_space")!
  return { size: space.space_size, used: space.space_used_size }
}

/** Objects that live long enough to be promoted; all but every `keepEvery`-th are dropped after. */
const promoteThenDrop = (count: number, keepEvery: number) => {
  const all = Array.from({ length: count }, (_, i) => ({ i, text: `object ${i}` }))
  fullCollection() // promotes them to the old generation
  return all.filter((_, i) => i % keepEvery === 0)
}

describe("process heap (a process svc owns)", () => {
  it("fullCollection frees what nothing references any more", () => {
    fullCollection()
    const before = oldSpace().used
    /** The old generation in use while the objects are still referenced (here, inside). */
    const heldWhileReferenced = (count: number) => {
      const objects = promoteThenDrop(count, 1)
      expect(objects).toHaveLength(count)
      return oldSpace().used
    }
    const held = heldWhileReferenced(600_000)
    expect(held - before).toBeGreaterThan(20 * MB)
    fullCollection()
    expect(held - oldSpace().used).toBeGreaterThan(20 * MB)
  })

  it("compactHeap also gives back pages the survivors kept half empty", () => {
    // Every 20th object survives, so each page of them keeps a few live objects: a collection
    // frees the rest but keeps the pages, and only compaction moves the survivors together.
    const survivors = promoteThenDrop(600_000, 20)
    compactHeap()
    const { size, used } = oldSpace()
    expect(survivors).toHaveLength(30_000)
    expect(size - used).toBeLessThan(8 * MB)
  })
})
