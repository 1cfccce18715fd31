import { optionalServers } from "./optional-servers.js"

/**
 * The backend project's global setup: says once, in the runner's output, which optional servers
 * this run goes without. Suites that need one of them are skipped with a note of their own; the
 * feature suites run on SQLite and whichever database engines are set.
 */
export default function announceServers(): void {
  const missing = Object.values(optionalServers).filter((server) => server.url === undefined)
  if (missing.length === 0) return
  const names = missing.map((server) => `${server.variable} (${server.name})`).join(", ")
  console.info(
    `svc tests: ${names} not set: the suites that need them are skipped, each with a note saying so; ` +
      `the database suites run on SQLite and the engines that are set.`
  )
}
