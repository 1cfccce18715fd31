import { vi } from "vitest"

/**
 * Puts `setTimeout`, `clearTimeout` and `Date` on the test's clock (`vi.advanceTimersByTimeAsync`):
 * the client's per-attempt deadlines and retry waits then take no real time. Sockets, the fake
 * server and `setImmediate` stay real. Undo with `vi.useRealTimers()`.
 */
export const useFakeTime = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"], now: Date.now() })

/** One turn of real I/O. */
export const ioTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Lets real I/O run until `check` holds (a request arrived, an event came); fails after 5 s of real time. */
export const until = async (check: () => boolean, what = "the condition") => {
  const deadline = performance.now() + 5000
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what}`)
    await ioTurn()
  }
}

/** Whether `promise` has settled, after letting real I/O run for a few turns. */
export const settledSoon = async (promise: Promise<unknown>, turns = 20): Promise<boolean> => {
  let settled = false
  void promise.then(() => (settled = true), () => (settled = true))
  for (let i = 0; i < turns && !settled; i++) await ioTurn()
  return settled
}
