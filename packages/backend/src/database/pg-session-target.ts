import pg from "pg"
import type { PgEndpoint, PgTarget, TargetSessionAttrs, Transport } from "../config/pg-url.js"

/*
 * Finding the server a PostgreSQL URL means, as libpq does: each host in the URL's order, on each
 * the transports `sslmode` allows in its order, and the first session that has the
 * `target_session_attrs` wanted is kept.
 */

/** What a session reports about its server. */
export interface SessionState {
  /** `pg_is_in_recovery()`: a standby. */
  readonly standby: boolean
  /** `transaction_read_only` of a fresh session: a standby, or a primary set read-only. */
  readonly readOnly: boolean
}

export const SESSION_STATE_QUERY =
  "SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') = 'on' AS read_only"

export const readSessionState = async (client: pg.ClientBase): Promise<SessionState> => {
  const { rows } = await client.query<{ standby: boolean; read_only: boolean }>(SESSION_STATE_QUERY)
  const row = rows[0]
  return { standby: row?.standby === true, readOnly: row?.read_only === true }
}

/** Whether a session on a server in `state` is one `attrs` accepts (`prefer-standby` takes any; see `findServer`). */
export const accepts = (attrs: TargetSessionAttrs, state: SessionState): boolean => {
  switch (attrs) {
    case "any":
    case "prefer-standby":
      return true
    case "read-write":
      return !state.readOnly
    case "read-only":
      return state.readOnly
    case "primary":
      return !state.standby
    case "standby":
      return state.standby
  }
}

/** A host and the transport that reached it. */
export interface Server {
  readonly endpoint: PgEndpoint
  readonly transport: Transport
}

/** node-postgres options for one connection to `server`. */
export const connectionConfig = (target: PgTarget, server: Server): pg.ClientConfig => ({
  ...target.client,
  host: server.endpoint.host,
  port: server.endpoint.port,
  ssl: server.transport._tag === "Plain" ? false : server.transport.options
})

export const describeServer = ({ endpoint }: Server): string =>
  `${endpoint.host.includes(":") ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`

/** What one host answered, for the log and the error when no host matched (no password, no URL). */
export type Probe =
  | { readonly _tag: "Reached"; readonly server: Server; readonly state: SessionState }
  | { readonly _tag: "Unreachable"; readonly endpoint: PgEndpoint; readonly error: unknown }

const probeHost = async (target: PgTarget, endpoint: PgEndpoint, timeoutMs: number): Promise<Probe> => {
  let failure: unknown = new Error("no transport tried")
  for (const transport of target.transports) {
    const server: Server = { endpoint, transport }
    const client = new pg.Client({ ...connectionConfig(target, server), connectionTimeoutMillis: timeoutMs })
    // A failed connection also reports its error as an event: without a listener Node would throw it.
    client.on("error", () => undefined)
    try {
      await client.connect()
      return { _tag: "Reached", server, state: await readSessionState(client) }
    } catch (error) {
      failure = error
    } finally {
      await client.end().catch(() => undefined)
    }
  }
  return { _tag: "Unreachable", endpoint, error: failure }
}

const describeProbe = (probe: Probe): string =>
  probe._tag === "Unreachable"
    ? `${describeServer({ endpoint: probe.endpoint, transport: { _tag: "Plain" } })}: ${
      probe.error instanceof Error ? probe.error.message : String(probe.error)
    }`
    : `${describeServer(probe.server)}: ${
      probe.state.standby ? "standby" : probe.state.readOnly ? "read-only primary" : "primary"
    }`

export type Found =
  | { readonly _tag: "Found"; readonly server: Server }
  /** `error`: the driver's own when the URL names one host it could not reach, else one naming every host. */
  | { readonly _tag: "NotFound"; readonly error: unknown }

/**
 * The first host, in the URL's order, whose session `target.targetSessionAttrs` accepts.
 * `prefer-standby` is libpq's two passes: the first standby, else the first host reached.
 */
export const findServer = async (target: PgTarget, timeoutMs: number): Promise<Found> => {
  const probes: Array<Probe> = []
  for (const endpoint of target.endpoints) {
    const probe = await probeHost(target, endpoint, timeoutMs)
    probes.push(probe)
    const wanted = target.targetSessionAttrs === "prefer-standby" ? "standby" : target.targetSessionAttrs
    if (probe._tag === "Reached" && accepts(wanted, probe.state)) return { _tag: "Found", server: probe.server }
  }
  const fallback = target.targetSessionAttrs === "prefer-standby"
    ? probes.find((probe) => probe._tag === "Reached")
    : undefined
  if (fallback?._tag === "Reached") return { _tag: "Found", server: fallback.server }
  const [only] = probes
  if (probes.length === 1 && only?._tag === "Unreachable") return { _tag: "NotFound", error: only.error }
  return {
    _tag: "NotFound",
    error: new Error(`no host is ${target.targetSessionAttrs} (${probes.map(describeProbe).join("; ")})`)
  }
}
