import { Effect } from "effect"

/**
 * One turn of the event loop (`setImmediate`): the fiber resumes after Node has polled for I/O, so
 * sockets are read, connections accepted and timers fired in between. Effect's own yields are
 * microtasks, which let other fibers run but never the loop; a fiber that works through SQLite's
 * synchronous driver in a long loop must take this turn between steps, or nothing else is served
 * until it is done.
 */
export const eventLoopTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  const immediate = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(immediate))
})
