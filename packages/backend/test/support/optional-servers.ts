/** A server beyond SQLite that some suites need, found through the environment variable naming it. */
export interface OptionalServer {
  readonly name: string
  readonly variable: string
  /** The server's URL; `undefined` when its variable is unset or empty. */
  readonly url: string | undefined
}

const optional = (name: string, variable: string): OptionalServer => {
  const url = process.env[variable]
  return { name, variable, url: url === undefined || url === "" ? undefined : url }
}

/**
 * The optional servers. A variable that is set makes its server required: the suites using it fail,
 * never skip, when it is unreachable (CI sets them all). One that is unset leaves those suites out,
 * and each says so in the runner's output (server-suites.ts).
 */
export const optionalServers = {
  postgres: optional("PostgreSQL", "SVC_TEST_PG_URL"),
  mysql: optional("MySQL", "SVC_TEST_MYSQL_URL"),
  redis: optional("Redis", "SVC_TEST_REDIS_URL"),
  nats: optional("NATS", "SVC_TEST_NATS_URL"),
  /** PostgreSQL's server programs (initdb, pg_ctl), for throwaway primaries and standbys. */
  postgresBinaries: optional("PostgreSQL server binaries", "SVC_TEST_PG_BIN"),
  /** Any value: Debian's docker.io (/usr/bin/docker, dockerd running), docker-compose and debootstrap, as root. */
  docker: optional("Docker", "SVC_TEST_DOCKER")
} as const

/** Why a suite is left out: `needs SVC_TEST_NATS_URL (NATS)`. */
export const missingNote = (servers: ReadonlyArray<OptionalServer>): string =>
  `needs ${servers.map((server) => `${server.variable} (${server.name})`).join(" or ")}`
