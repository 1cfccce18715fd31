import { resolveOptions, SvcConfigurationError, type SvcOptions } from "@svc/backend"
import { Predicate } from "effect"
import { readFileSync } from "node:fs"
import { withDatabaseUrl } from "./config-file.js"
import { builtInOptions } from "./demo.js"

type Env = Readonly<Record<string, string | undefined>>

/**
 * The options a variable sets, and the path its problems carry in `resolveOptions`' messages.
 * Each is read from `NAME`, or from the file `NAME_FILE` names (a Docker or Kubernetes secret).
 */
const variables = [
  ["SVC_DATABASE_URL", "database.url"],
  ["SVC_DATABASE_READ_URL", "database.readUrl"],
  ["SVC_DATABASE_MAX_CONNECTIONS", "database.maxConnections"],
  ["SVC_API_KEYS", "apiKeys"],
  ["SVC_SNAPSHOT_KEY", "policySnapshot.signingKey"],
  ["SVC_IDENTITY_KEY", "identityToken.signingKey"],
  ["SVC_LOG_KEY", "transparencyLog.signingKey"],
  ["SVC_TRUSTED_ORIGINS", "trustedOrigins"]
] as const

type Variable = (typeof variables)[number][0]

/**
 * What the environment says about the configuration: the config file `SVC_CONFIG` names, and the
 * option variables that are set (their values read, a `_FILE` one from its file).
 */
export interface Environment {
  readonly configFile: string | undefined
  readonly values: Readonly<Partial<Record<Variable, string>>>
}

const fail = (problem: string): never => {
  throw new SvcConfigurationError([problem])
}

/** `NAME`, else the content of the file `NAME_FILE` names (one trailing newline dropped); empty is unset. */
const readVariable = (env: Env, name: Variable): string | undefined => {
  const direct = env[name] === "" ? undefined : env[name]
  const file = env[`${name}_FILE`] === "" ? undefined : env[`${name}_FILE`]
  if (direct !== undefined && file !== undefined) return fail(`${name} and ${name}_FILE are both set; set one`)
  if (file === undefined) return direct
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (error) {
    const code = Predicate.hasProperty(error, "code") && typeof error.code === "string" ? error.code : "unreadable"
    return fail(`${name}_FILE: cannot read ${file} (${code})`)
  }
  const value = text.replace(/\r?\n$/, "")
  return value === "" ? fail(`${name}_FILE: ${file} is empty`) : value
}

/**
 * Reads `SVC_CONFIG` and the option variables from `env`. A variable set both ways, or a `_FILE`
 * that cannot be read, is a `SvcConfigurationError` naming the variable (never its value).
 */
export const readEnvironment = (env: Env): Environment => {
  const values: Partial<Record<Variable, string>> = {}
  for (const [name] of variables) {
    const value = readVariable(env, name)
    if (value !== undefined) values[name] = value
  }
  return { configFile: env.SVC_CONFIG === "" ? undefined : env.SVC_CONFIG, values }
}

/** The variables that set options, in a fixed order (for the startup line; never their values). */
export const variablesSet = (environment: Environment): ReadonlyArray<string> =>
  variables.filter(([name]) => environment.values[name] !== undefined).map(([name]) => name)

/** A list variable: entries separated by commas or white space (a secret file may hold one a line). */
const list = (name: Variable, value: string): Array<string> => {
  const entries = value.split(/[\s,]+/).filter((entry) => entry !== "")
  return entries.length > 0 ? entries : fail(`${name}: no entry in it (entries are separated by commas or white space)`)
}

/**
 * Without a config file the URL's scheme gives the dialect: `postgres://` or `postgresql://`,
 * `mysql://`; anything else without a scheme is a SQLite file path (or `:memory:`).
 */
const dialectOf = (url: string): "sqlite" | "postgres" | "mysql" => {
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgres"
  if (/^mysql:\/\//i.test(url)) return "mysql"
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    return fail(
      "SVC_DATABASE_URL: not a postgres:// or mysql:// URL, nor a SQLite file path (the URL is not repeated here)"
    )
  }
  return "sqlite"
}

/**
 * `database.readUrl` set to `readUrl`. It is checked with the other options (`resolveOptions`:
 * SQLite refuses one, and a URL of another dialect is named, never quoted); beside a `layer` the
 * read side is a layer too, so the variable cannot apply.
 */
const withReadUrl = (options: SvcOptions, readUrl: string | undefined): SvcOptions => {
  const database = options.database
  if (readUrl === undefined || typeof database !== "object" || database === null) return options
  if ("layer" in database) {
    return fail(
      "SVC_DATABASE_READ_URL: the config file's database is a layer; give its read side as database.readLayer"
    )
  }
  return { ...options, database: { ...database, readUrl } }
}

/**
 * `database.maxConnections` set to `value`, a positive integer in decimal digits. It is checked
 * with the other options (`resolveOptions`: SQLite refuses one); beside a `layer` the pool is sized
 * where the layer is made, so the variable cannot apply.
 */
const withMaxConnections = (options: SvcOptions, value: string | undefined): SvcOptions => {
  const database = options.database
  if (value === undefined || typeof database !== "object" || database === null) return options
  const maxConnections = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(maxConnections) || maxConnections < 1) {
    return fail("SVC_DATABASE_MAX_CONNECTIONS: must be a positive integer (the most connections each pool holds)")
  }
  if ("layer" in database) {
    return fail(
      "SVC_DATABASE_MAX_CONNECTIONS: the config file's database is a layer; size its pool where the layer is made"
    )
  }
  return { ...options, database: { ...database, maxConnections } }
}

/** The options the variables replace in `options`; the other options stay as they are. */
const applyVariables = (options: SvcOptions, values: Environment["values"]): SvcOptions => {
  const {
    SVC_API_KEYS: apiKeys,
    SVC_IDENTITY_KEY: identityKey,
    SVC_LOG_KEY: logKey,
    SVC_SNAPSHOT_KEY: snapshotKey,
    SVC_TRUSTED_ORIGINS: origins
  } = values
  return {
    ...withMaxConnections(
      withReadUrl(withDatabaseUrl(options, values.SVC_DATABASE_URL), values.SVC_DATABASE_READ_URL),
      values.SVC_DATABASE_MAX_CONNECTIONS
    ),
    ...(apiKeys === undefined ? {} : { apiKeys: list("SVC_API_KEYS", apiKeys) }),
    ...(origins === undefined ? {} : { trustedOrigins: list("SVC_TRUSTED_ORIGINS", origins) }),
    ...(snapshotKey === undefined ? {} : { policySnapshot: { ...options.policySnapshot, signingKey: snapshotKey } }),
    ...(identityKey === undefined ? {} : { identityToken: { ...options.identityToken, signingKey: identityKey } }),
    ...(logKey === undefined ? {} : { transparencyLog: { ...options.transparencyLog, signingKey: logKey } })
  }
}

/** `resolveOptions`' problems, each naming the variable its option came from. */
const checked = (options: SvcOptions, environment: Environment): SvcOptions => {
  try {
    resolveOptions(options)
  } catch (error) {
    if (!(error instanceof SvcConfigurationError)) throw error
    const set = variables.filter(([name]) => environment.values[name] !== undefined)
    throw new SvcConfigurationError(error.issues.map((issue) => {
      const from = set.find(([, path]) =>
        issue.startsWith(`${path}:`) || issue.startsWith(`${path}[`) || issue.startsWith(`${path}.`)
      )
      return from === undefined ? issue : `${issue} (set by ${from[0]})`
    }))
  }
  return options
}

/**
 * The options `svc` runs with given the environment: those of the config file (`config`, when there
 * is one) with what the variables set replaced; without a file, the built-in manifest on the
 * database `SVC_DATABASE_URL` names (else `./svc.db`), its dialect read from the URL, and the
 * standby `SVC_DATABASE_READ_URL` names, if any. A problem with a value from the environment
 * names the variable.
 */
export const optionsFromEnvironment = (config: SvcOptions | undefined, environment: Environment): SvcOptions => {
  const values = environment.values
  if (config !== undefined) return checked(applyVariables(config, values), environment)
  const url = values.SVC_DATABASE_URL ?? "./svc.db"
  const base = builtInOptions({ dialect: dialectOf(url), url }, {
    snapshotKey: values.SVC_SNAPSHOT_KEY !== undefined,
    logKey: values.SVC_LOG_KEY !== undefined
  })
  const { SVC_DATABASE_URL: _url, ...rest } = values
  return checked(applyVariables(base, rest), environment)
}
