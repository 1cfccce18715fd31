/*
 * Problems in the `database` block, said in the operator's terms: a misspelled dialect with the
 * one that was likely meant, and a URL that is not one for its dialect (never quoting it: it may
 * hold a password).
 */
import { Layer } from "effect"
import { parsePgUrl } from "./pg-url.js"

export const DIALECTS = ["sqlite", "postgres", "mysql"] as const

/** Names people write for a dialect, and the one svc calls it. */
const aliases: Record<string, (typeof DIALECTS)[number]> = {
  postgresql: "postgres",
  pg: "postgres",
  pgsql: "postgres",
  psql: "postgres",
  mariadb: "mysql",
  mysql2: "mysql",
  sqlite3: "sqlite",
  "better-sqlite3": "sqlite"
}

const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

/** The dialect a misspelling most likely meant, if any is close. */
export const likelyDialect = (written: string): string | undefined => {
  const lower = written.trim().toLowerCase()
  const known = aliases[lower] ?? DIALECTS.find((dialect) => dialect === lower)
  if (known !== undefined) return known
  const [best] = DIALECTS.map((dialect) => [dialect, editDistance(lower, dialect)] as const).sort((x, y) => x[1] - y[1])
  return best !== undefined && best[1] <= 2 ? best[0] : undefined
}

/** `database.dialect: …`, or `undefined` when the value is one of the three. */
export const dialectProblem = (dialect: unknown): string | undefined => {
  if (DIALECTS.some((known) => known === dialect)) return undefined
  const expected = `one of ${DIALECTS.map((d) => `"${d}"`).join(", ")}`
  if (typeof dialect !== "string") return `must be ${expected}`
  // A plain word is echoed; anything else (a URL pasted in the wrong field) is not.
  const shown = /^[A-Za-z0-9_.-]{1,32}$/.test(dialect) ? `"${dialect}"` : "the value"
  const guess = likelyDialect(dialect)
  return `${shown} is not a dialect; ${
    guess === undefined ? `use ${expected}` : `did you mean "${guess}"? (${expected})`
  }`
}

const urlSchemes: Record<string, ReadonlyArray<string>> = {
  postgres: ["postgres:", "postgresql:"],
  mysql: ["mysql:"]
}

const urlExamples: Record<string, string> = {
  postgres: "postgres://user:password@host:5432/database",
  mysql: "mysql://user:password@host:3306/database"
}

/**
 * Why `url` is not a database URL for `dialect` (without quoting it), or `undefined`. SQLite
 * takes a file path or `:memory:`.
 *
 * @example
 * ```ts
 * import { databaseUrlProblem } from "@svc/backend"
 *
 * // A setup script checks the URL before writing it into .env; the answer never repeats the URL.
 * databaseUrlProblem("postgres", "postgres://svc:s3cret@db.internal:5432/svc") // undefined
 * databaseUrlProblem("mysql", "postgres://svc@db.internal/svc")
 * // "not a mysql URL; a mysql URL looks like mysql://user:password@host:3306/database"
 * ```
 */
export const databaseUrlProblem = (dialect: unknown, url: unknown): string | undefined => {
  if (typeof url !== "string" || url === "") return "must be a non-empty string"
  if (typeof dialect !== "string" || !(dialect in urlSchemes)) return undefined
  if (dialect === "postgres" && /^postgres(ql)?:\/\//.test(url)) {
    // libpq's form: several hosts, target_session_attrs and sslmode are read by parsePgUrl.
    const target = parsePgUrl(url)
    return typeof target === "string" ? target : undefined
  }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return `not a URL; a ${dialect} URL looks like ${urlExamples[dialect]}`
  }
  if (!urlSchemes[dialect]!.includes(parsed.protocol)) {
    return `not a ${dialect} URL; a ${dialect} URL looks like ${urlExamples[dialect]}`
  }
  return undefined
}

/**
 * The `database` block's dialect and URL problems, each prefixed with its path. When there are
 * any, they replace the structural schema's lines for the same fields (which, the block being a
 * union with `{ layer }`, would list every alternative instead of the likely mistake).
 */
export const databaseProblems = (database: unknown): Array<string> => {
  if (typeof database !== "object" || database === null) return []
  if ("layer" in database) return layerSideProblems(database)
  if (!("dialect" in database)) return []
  const { dialect } = database
  const url = "url" in database ? database.url : undefined
  const problems: Array<string> = []
  const badDialect = dialectProblem(dialect)
  if (badDialect !== undefined) problems.push(`database.dialect: ${badDialect}`)
  const badUrl = databaseUrlProblem(dialect, url)
  if (badUrl !== undefined) problems.push(`database.url: ${badUrl}`)
  if ("readLayer" in database) {
    problems.push("database.readLayer: only beside layer; beside url, give the read side as readUrl")
  }
  if ("readUrl" in database && database.readUrl !== undefined) {
    const badReadUrl = readUrlProblem(dialect, database.readUrl)
    if (badReadUrl !== undefined) problems.push(`database.readUrl: ${badReadUrl}`)
  }
  if ("maxConnections" in database && database.maxConnections !== undefined) {
    const badPool = maxConnectionsProblem(dialect, database.maxConnections)
    if (badPool !== undefined) problems.push(`database.maxConnections: ${badPool}`)
  }
  return problems
}

/** Why `maxConnections` cannot size a `dialect` pool, or `undefined`. */
const maxConnectionsProblem = (dialect: unknown, maxConnections: unknown): string | undefined => {
  if (dialect === "sqlite") {
    return "SQLite has one connection, shared by group commit; remove maxConnections (or use postgres or mysql)"
  }
  return typeof maxConnections === "number" && Number.isSafeInteger(maxConnections) && maxConnections > 0
    ? undefined
    : "must be a positive integer"
}

/** `{ layer }`'s read side is a layer too: a URL there, or a `readLayer` that is not one, said plainly. */
const layerSideProblems = (database: object): Array<string> => {
  const problems: Array<string> = []
  if ("readUrl" in database) {
    problems.push("database.readUrl: beside layer, give the read side as readLayer (an SqlClient layer)")
  }
  if ("maxConnections" in database) {
    problems.push("database.maxConnections: only beside url; a layer's pool is sized where the layer is made")
  }
  if ("readLayer" in database && database.readLayer !== undefined && !Layer.isLayer(database.readLayer)) {
    problems.push("database.readLayer: must be an SqlClient layer (as layer is)")
  }
  return problems
}

/** Why `readUrl` cannot be the read URL of a `dialect` database, or `undefined`. */
const readUrlProblem = (dialect: unknown, readUrl: unknown): string | undefined => {
  if (dialect === "sqlite") {
    return "SQLite is one file with no standby to read from; remove readUrl (or use postgres or mysql)"
  }
  return databaseUrlProblem(dialect, readUrl)
}

/** The schema's lines minus those `databaseProblems` says better. */
export const withDatabaseProblems = (
  schemaLines: ReadonlyArray<string>,
  database: ReadonlyArray<string>
): Array<string> =>
  database.length === 0
    ? [...schemaLines]
    : [
      ...schemaLines.filter((line) =>
        !/^database(\.(dialect|url|readUrl|layer|readLayer|maxConnections))?:/.test(line)
      ),
      ...database
    ]
