import { describe, it } from "vitest"
import { missingNote, type OptionalServer } from "./optional-servers.js"

/**
 * Stands in for a suite none of whose servers is set: one test, skipped with a note naming the
 * variables, which vitest's reporter prints beside it.
 */
export const skippedWithout = (suite: string, servers: ReadonlyArray<OptionalServer>): void => {
  it(suite, (context) => context.skip(missingNote(servers)))
}

/**
 * A suite that needs `server`: declared (and its setup run) only when the server's variable is set,
 * otherwise one skipped test saying which variable would run it.
 */
export const describeWith = (server: OptionalServer, suite: string, body: (url: string) => void): void => {
  const url = server.url
  if (url === undefined) skippedWithout(suite, [server])
  else describe(suite, () => body(url))
}

/** A test that needs `server`: skipped with a note naming its variable when that is unset. */
export const itWith = (
  server: OptionalServer,
  name: string,
  body: (url: string) => Promise<void>,
  timeout?: number
): void => {
  it(name, (context) => server.url === undefined ? context.skip(missingNote([server])) : body(server.url), timeout)
}
