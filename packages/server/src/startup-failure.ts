import type { SvcOptions } from "@svc/backend"
import { Cause, Predicate, Runtime } from "effect"
import { resolve } from "node:path"

/** The error behind Effect's wrappers (a FiberFailure, a Cause). */
const underlying = (error: unknown): unknown => {
  if (Runtime.isFiberFailure(error)) return Cause.squash(error[Runtime.FiberFailureCauseId])
  if (Cause.isCause(error)) return Cause.squash(error)
  return error
}

/**
 * A libpq URL may list several hosts (`h1:5432,h2:5432`), which the WHATWG URL parser refuses: the
 * list, and the URL with its first host only (for the user, database and password).
 */
const splitHosts = (url: string): { readonly hosts: string | undefined; readonly single: string } => {
  const match = /^(\w+:\/\/(?:[^@/?#]*@)?)([^/?#]*)(.*)$/.exec(url)
  if (match === null || !match[2]!.includes(",")) return { hosts: undefined, single: url }
  return { hosts: match[2]!, single: `${match[1]}${match[2]!.split(",")[0]}${match[3]}` }
}

const defaultPorts: Record<string, number> = { postgres: 5432, mysql: 3306 }
const names: Record<string, string> = { postgres: "PostgreSQL", mysql: "MySQL" }

/** Which database, in words, without its password: `PostgreSQL at db:5432, database "svc", user "app"`. */
export const describeDatabaseLocation = (database: SvcOptions["database"]): string => {
  if ("layer" in database) return "the SqlClient layer of the configuration"
  if (database.dialect === "sqlite")
    return `the SQLite database ${database.url === ":memory:" ? ":memory:" : resolve(database.url)}`
  const { hosts, single } = splitHosts(database.url)
  let url: URL
  try {
    url = new URL(single)
  } catch {
    return `the ${names[database.dialect] ?? database.dialect} database (its URL does not parse)`
  }
  const host = url.hostname === "" ? url.searchParams.get("host") ?? "localhost" : url.hostname
  const port = url.port === "" ? defaultPorts[database.dialect] : Number(url.port)
  const user = decodeURIComponent(url.username)
  const name = decodeURIComponent(url.pathname.replace(/^\//, "")) || user
  return `${names[database.dialect] ?? database.dialect} at ${hosts ?? `${host}:${port}`}` +
    (name === "" ? "" : `, database "${name}"`) + (user === "" ? "" : `, user "${user}"`)
}

/** The driver's own reason: its message, and its code when the message does not already say it. */
const driverReason = (cause: unknown): string => {
  if (typeof cause !== "object" || cause === null) return String(cause)
  const [code, errors, message] = [propertyOf(cause, "code"), propertyOf(cause, "errors"), propertyOf(cause, "message")]
  // Connecting to `localhost` tries each address; Node reports them together.
  if (Array.isArray(errors) && errors.length > 0 && (message === undefined || message === "")) {
    return [...new Set(errors.map(driverReason))].join("; ")
  }
  const text = typeof message === "string" ? message : ""
  if (typeof code === "string" && code !== "" && !text.includes(code)) return text === "" ? code : `${text} (${code})`
  return text === "" ? String(cause) : text
}

/** A password from the database URL never reaches a message, whatever the driver wrote. */
const withoutPassword = (text: string, database: SvcOptions["database"]): string => {
  if ("layer" in database || database.dialect === "sqlite") return text
  let password: string
  try {
    password = new URL(splitHosts(database.url).single).password
  } catch {
    return text
  }
  if (password === "") return text
  return [password, decodeURIComponent(password)].reduce((t, secret) => t.split(secret).join("***"), text)
}

/** `value[key]` of a value of unknown shape (a driver's error): `undefined` when it has no such property. */
const propertyOf = (value: unknown, key: PropertyKey): unknown =>
  Predicate.hasProperty(value, key) ? value[key] : undefined

const tagOf = (error: unknown) => propertyOf(error, "_tag")

/**
 * One line for a failure to build the app: what failed and where (the database by host, port and
 * name, or its file), with the driver's reason. Never a password.
 */
export const describeStartupFailure = (error: unknown, options: SvcOptions): string => {
  const failure = underlying(error)
  const database = options.database
  const where = describeDatabaseLocation(database)
  const message = failure instanceof Error ? failure.message : String(failure)
  let line: string
  if (tagOf(failure) === "SqlError") {
    const reason = driverReason(propertyOf(failure, "cause") ?? failure)
    line = /failed to connect/i.test(message)
      ? `cannot connect to ${where}: ${reason}`
      : `database failure on ${where}: ${reason}`
  } else if (tagOf(failure) === "MigrationFailed") {
    line = `${message} (on ${where})`
  } else if (
    !("layer" in database) && database.dialect === "sqlite" &&
    /database|sqlite|directory|permission|EACCES|ENOENT/i.test(message)
  ) {
    line = `cannot open ${where}: ${driverReason(failure)}`
  } else if (failure instanceof Error && failure.name === "SvcConfigurationError") {
    line = message
  } else {
    line = `could not start: ${
      message === "An error has occurred" ? String(Cause.isCause(error) ? Cause.pretty(error) : error) : message
    }`
  }
  return withoutPassword(line, database)
}

/** One line for a port that cannot be bound. */
export const listenFailure = (error: unknown, host: string, port: number): string => {
  const code = propertyOf(error, "code")
  if (code === "EADDRINUSE") return `cannot listen on ${host}:${port}: the port is already in use`
  if (code === "EACCES") return `cannot listen on ${host}:${port}: permission denied`
  if (code === "EADDRNOTAVAIL") return `cannot listen on ${host}:${port}: no such address on this machine`
  return `cannot listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}`
}
