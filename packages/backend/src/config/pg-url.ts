import type { ClientConfig } from "pg"
import { parse } from "pg-connection-string"
import type { ConnectionOptions } from "node:tls"

/*
 * A PostgreSQL URL read the way libpq reads it: a list of hosts (`h1:5432,h2:5433`),
 * `target_session_attrs` and `sslmode` with libpq's meanings. node-postgres takes one host and reads
 * every `sslmode` but `disable` as `verify-full`; svc picks the host itself (pg-host-selection.ts)
 * and hands node-postgres one host at a time. Everything else in the URL (user, password, database,
 * `options`, `application_name`, certificate files) is read by pg-connection-string, node-postgres'
 * own parser, in its libpq-compatible mode.
 */

export const TARGET_SESSION_ATTRS = ["any", "read-write", "read-only", "primary", "standby", "prefer-standby"] as const
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number]

export const SSL_MODES = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] as const
export type SslMode = (typeof SSL_MODES)[number]

export interface PgEndpoint {
  readonly host: string
  readonly port: number
}

/** How one connection attempt talks to a server: in the clear, or TLS with these options. */
export type Transport = { readonly _tag: "Plain" } | { readonly _tag: "Tls"; readonly options: ConnectionOptions }

export interface PgTarget {
  /** The hosts in the URL's order, at least one. */
  readonly endpoints: ReadonlyArray<PgEndpoint>
  readonly targetSessionAttrs: TargetSessionAttrs
  readonly sslMode: SslMode
  /** The transports to try on each host, in libpq's order for `sslmode` (`prefer`: TLS, then plain). */
  readonly transports: ReadonlyArray<Transport>
  /** node-postgres options shared by every host (no host, port or ssl). */
  readonly client: Omit<ClientConfig, "host" | "port" | "ssl" | "connectionString">
}

const isOneOf = <T extends string>(values: ReadonlyArray<T>, value: string): value is T =>
  values.some((candidate) => candidate === value)

const DEFAULT_PORT = 5432

/** `host`, `host:port`, `[v6]` or `[v6]:port`. */
const readEndpoint = (written: string, defaultPort: number): PgEndpoint | string => {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*))(?::(\d*))?$/.exec(written)
  if (match === null) return "a host in the URL is not `host` or `host:port`"
  const host = decodeURIComponent(match[1] ?? match[2] ?? "")
  const port = match[3] === undefined || match[3] === "" ? defaultPort : Number(match[3])
  if (!Number.isInteger(port) || port < 1 || port > 65535) return "a port in the URL is not a number from 1 to 65535"
  return { host: host === "" ? "localhost" : host, port }
}

const transportsFor = (mode: SslMode, tls: ConnectionOptions): ReadonlyArray<Transport> => {
  const noVerify: Transport = { _tag: "Tls", options: { ...tls, rejectUnauthorized: false } }
  switch (mode) {
    case "disable":
      return [{ _tag: "Plain" }]
    case "allow":
      return [{ _tag: "Plain" }, noVerify]
    case "prefer":
      return [noVerify, { _tag: "Plain" }]
    case "require":
      // libpq: with a root certificate given, `require` verifies the chain as `verify-ca` does.
      return tls.ca === undefined
        ? [noVerify]
        : [{ _tag: "Tls", options: { ...tls, checkServerIdentity: () => undefined } }]
    case "verify-ca":
      return [{ _tag: "Tls", options: { ...tls, checkServerIdentity: () => undefined } }]
    case "verify-full":
      return [{ _tag: "Tls", options: tls }]
  }
}

/**
 * Reads a `postgres://` URL into the hosts to try and the options for each connection, or says
 * why it cannot (never quoting the URL: it may hold a password). Without `sslmode` libpq's
 * default, `prefer`, applies.
 */
export const parsePgUrl = (url: string): PgTarget | string => {
  const match = /^(postgres(?:ql)?:)\/\/([^/?#]*)(.*)$/.exec(url)
  if (match === null) return "not a postgres:// URL"
  const [, scheme = "", authority = "", rest = ""] = match
  const at = authority.lastIndexOf("@")
  const userInfo = at === -1 ? "" : authority.slice(0, at + 1)
  const hostList = at === -1 ? authority : authority.slice(at + 1)
  const written = hostList.split(",")
  // libpq: a host without a port takes the default, 5432.
  const endpoints: Array<PgEndpoint> = []
  for (const one of written) {
    const endpoint = readEndpoint(one, DEFAULT_PORT)
    if (typeof endpoint === "string") return endpoint
    endpoints.push(endpoint)
  }
  let parsed: ReturnType<typeof parse>
  try {
    // One host stands in for the list: the rest of the URL is the same for every host.
    parsed = parse(`${scheme}//${userInfo}${written[0] ?? ""}${rest}`, { useLibpqCompat: true })
  } catch (error) {
    const message = error instanceof Error ? error.message : ""
    return message.startsWith("SECURITY WARNING")
      ? "sslmode=verify-ca needs sslrootcert (the CA that signed the server's certificate)"
      : "the URL could not be read (check its percent-encoding and the certificate file paths)"
  }
  const attrs = typeof parsed["target_session_attrs"] === "string" ? parsed["target_session_attrs"] : "any"
  if (!isOneOf(TARGET_SESSION_ATTRS, attrs)) {
    return `target_session_attrs must be one of ${TARGET_SESSION_ATTRS.join(", ")}`
  }
  const mode = typeof parsed["sslmode"] === "string" ? parsed["sslmode"] : "prefer"
  if (!isOneOf(SSL_MODES, mode)) return `sslmode must be one of ${SSL_MODES.join(", ")}`
  const tls: ConnectionOptions = typeof parsed.ssl === "object" && parsed.ssl !== null
    ? {
      ...(parsed.ssl.ca === undefined ? {} : { ca: parsed.ssl.ca }),
      ...(typeof parsed.ssl.cert === "string" ? { cert: parsed.ssl.cert } : {}),
      ...(parsed.ssl.key === undefined ? {} : { key: parsed.ssl.key })
    }
    : {}
  const client: PgTarget["client"] = {
    ...(parsed.user === undefined || parsed.user === "" ? {} : { user: parsed.user }),
    ...(parsed.password === undefined || parsed.password === "" ? {} : { password: parsed.password }),
    ...(parsed.database === null || parsed.database === undefined ? {} : { database: parsed.database }),
    ...(parsed.options === undefined ? {} : { options: parsed.options }),
    ...(parsed.application_name === undefined ? {} : { application_name: parsed.application_name })
  }
  return { endpoints, targetSessionAttrs: attrs, sslMode: mode, transports: transportsFor(mode, tls), client }
}

/** The URL's options with `search_path` set to `schema` (svc's `database.schema`), kept beside any `options` written. */
export const withSchema = (target: PgTarget, schema: string | undefined): PgTarget =>
  schema === undefined ? target : {
    ...target,
    client: {
      ...target.client,
      options: [target.client.options, `-c search_path=${schema}`].filter((part) => part !== undefined).join(" ")
    }
  }
