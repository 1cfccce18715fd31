import { HttpApi, type HttpApiEndpoint, type HttpApiGroup } from "@effect/platform"
import { parseIsoDate } from "@svc/schema"
import { SvcApi } from "@svc/api"
import { Either, Option, ParseResult, Predicate, Schema } from "effect"
import { isHeaderValue, isRecord, type Path } from "./checks.js"
import type { SvcIssue } from "./errors.js"
import { withoutValue } from "./failures.js"

/*
 * Input checks run before anything is sent. Wherever the contract has a schema for a request part,
 * that schema (read from `SvcApi` itself) does the checking, so the client cannot drift from the
 * server; the checks here cover what the schemas cannot see (comma lists, dates, JSON safety).
 */

// The contract's groups by name, as `HttpApi.reflect` types them: `SvcApi.groups` holds each group's
// own type, which `AnyWithProps` does not accept (an endpoint without a path has a `never` schema).
const groups = new Map<string, HttpApiGroup.HttpApiGroup.AnyWithProps>()
HttpApi.reflect(SvcApi, { onGroup: ({ group }) => groups.set(group.identifier, group), onEndpoint: () => {} })

/** The endpoint of the contract, to read its request schemas. */
export const endpointOf = (group: string, name: string): HttpApiEndpoint.HttpApiEndpoint.AnyWithProps => {
  const endpoint = groups.get(group)?.endpoints[name]
  if (endpoint === undefined) throw new Error(`@svc/api has no endpoint ${group}.${name}`)
  return endpoint
}

type AnySchema = Schema.Schema.Any

/**
 * Validates the decoded (type-side) value of one request part: the value as `schema` types it, or
 * the issues; `remap` turns schema paths into argument paths.
 */
export const validatePart = <A, I, R>(
  schema: Schema.Schema<A, I, R>,
  value: unknown,
  remap: (path: Path) => Path = (path) => path
): Either.Either<A, Array<SvcIssue>> => {
  const result = Schema.validateEither(schema, { errors: "all" })(value)
  if (Either.isRight(result)) return Either.right(result.right)
  // A union reports one issue per member at the same path; they become one "A or B" issue.
  const byPath = new Map<string, { path: Path; messages: Array<string> }>()
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(result.left)) {
    const path = remap(issue.path.filter((p): p is string | number => typeof p !== "symbol"))
    const key = JSON.stringify(path)
    const entry = byPath.get(key) ?? { path, messages: [] }
    const message = withoutValue(issue.message)
    if (!entry.messages.includes(message)) entry.messages.push(message)
    byPath.set(key, entry)
  }
  return Either.left([...byPath.values()].map(({ path, messages }) => {
    // "Expected undefined" is the optional member of a union: noise next to the real expectation.
    const useful = messages.length > 1 ? messages.filter((m) => m !== "Expected undefined") : messages
    return { path, message: useful.join(" or ") }
  }))
}

/** Validates one request part against the contract's schema for it, if the endpoint has one. */
export const checkPart = (
  schema: Option.Option<AnySchema>,
  value: unknown,
  remap?: (path: Path) => Path
): Array<SvcIssue> => {
  if (Option.isNone(schema)) return []
  const result = validatePart(schema.value, value, remap)
  return Either.isLeft(result) ? result.left : []
}

/** One issue per path: the first found (later checks of the same value add nothing). */
export const firstPerPath = (issues: ReadonlyArray<SvcIssue>): Array<SvcIssue> => {
  const seen = new Set<string>()
  return issues.filter((issue) => {
    const key = JSON.stringify(issue.path)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** Rule 9: a body JSON cannot represent (a bigint, a circular reference) is refused before sending. */
export const checkJsonSafe = (value: unknown, path: Path = [], ancestors = new Set<object>()): Array<SvcIssue> => {
  if (typeof value === "bigint") return [{ path, message: "is a bigint, which JSON cannot represent" }]
  if (typeof value !== "object" || value === null) return []
  if (ancestors.has(value)) return [{ path, message: "is a circular reference, which JSON cannot represent" }]
  if (Predicate.hasProperty(value, "toJSON") && typeof value.toJSON === "function") return []
  ancestors.add(value)
  const issues = Object.entries(value).flatMap(([key, child]) =>
    checkJsonSafe(child, [...path, Array.isArray(value) ? Number(key) : key], ancestors)
  )
  ancestors.delete(value)
  return issues
}

export const objectIssue = (value: unknown, path: Path, what: string): Array<SvcIssue> =>
  isRecord(value) ? [] : [{ path, message: `must be an object with ${what}` }]

const isValidDate = (value: unknown): value is Date => value instanceof Date && !Number.isNaN(value.getTime())

/** A time given as a `Date` or as non-negative integer epoch milliseconds. */
export const dateOrMillis = (value: unknown, path: Path, issues: Array<SvcIssue>): Date | undefined => {
  if (isValidDate(value)) return value
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return new Date(value)
  issues.push({ path, message: "must be a valid Date or non-negative integer epoch milliseconds" })
  return undefined
}

/** A time given as a `Date` or an ISO 8601 string; impossible calendar dates (2025-02-30) are refused. */
export const dateOrIso = (value: unknown, path: Path, issues: Array<SvcIssue>): Date | undefined => {
  if (isValidDate(value)) return value
  const parsed = typeof value === "string" ? parseIsoDate(value) : undefined
  if (parsed === undefined) issues.push({ path, message: "must be a valid Date or ISO 8601 date string" })
  return parsed
}

/** A list of policy types sent as one comma-separated query value, so no entry may hold a comma. */
export const checkTypeList = (value: unknown, path: Path): Array<SvcIssue> => {
  if (!Array.isArray(value) || value.length === 0) return [{ path, message: "must be a non-empty array of types" }]
  return value.flatMap((type, index): Array<SvcIssue> =>
    typeof type !== "string" || type.length === 0
      ? [{ path: [...path, index], message: "must be a non-empty string" }]
      : type.includes(",")
      ? [{ path: [...path, index], message: "must not contain a comma (each type is one entry)" }]
      : []
  )
}

/** An optional header-valued input. */
export const checkHeaderInput = (value: unknown, path: Path, pattern?: RegExp): Array<SvcIssue> => {
  if (value === undefined) return []
  // Surrounding spaces and tabs are harmless (fetch strips them); what remains must be a valid value.
  if (
    typeof value !== "string" || value.length > 256 || !isHeaderValue(value.replace(/^[\t ]+|[\t ]+$/g, "")) ||
    value.trim().length === 0
  ) {
    return [{
      path,
      message: "must be a non-empty string of at most 256 visible ASCII characters (inner spaces allowed, " +
        "no control or non-ASCII characters)"
    }]
  }
  return pattern === undefined || pattern.test(value) ? [] : [{ path, message: `must match ${pattern.source}` }]
}

/** Copies `value` without its `undefined` properties (the wire has no `undefined`). */
export const defined = <T extends Record<string, unknown>>(value: T): T =>
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- Object.fromEntries types its result as a string-keyed record; it holds T's own properties but those set to undefined, which T's optional fields (exactOptionalPropertyTypes) may leave out and which the contract's schemas then check (a mapped type over T cannot follow a filter)
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
