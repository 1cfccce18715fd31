import type { SvcIssue } from "./errors.js"

/*
 * Small validators shared by client options and call options. Each returns the issues it found;
 * messages never repeat the value checked, since it may be a secret.
 */

export type Path = ReadonlyArray<string | number>

export const MAX_TIMER_MS = 2_147_483_647

export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

export const checkInteger = (value: unknown, path: Path, min: number, max: number): Array<SvcIssue> =>
  typeof value === "number" && Number.isInteger(value) && value >= min && value <= max
    ? []
    : [{ path, message: `must be an integer from ${min} to ${max}` }]

export const checkKnownKeys = (value: Record<string, unknown>, known: ReadonlyArray<string>, path: Path) =>
  Object.keys(value).filter((key) => !known.includes(key)).map((key): SvcIssue => ({
    path: [...path, key],
    message: `is not a known option (expected one of ${known.join(", ")})`
  }))

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
// Field values may hold visible characters, spaces and tabs; CR, LF and NUL would split or end the header.
const headerValue = /^[^\r\n\0]*$/

export const isHeaderValue = (value: string): boolean => headerValue.test(value)

/** Header names the client sets itself; a caller's header of these names is replaced. */
export const ownedHeaders: ReadonlySet<string> = new Set([
  "accept",
  "authorization",
  "content-type",
  "x-request-id",
  "x-svc-version",
  "x-svc-policy-contract"
])

export type HeadersInput = Readonly<Record<string, string>> | Headers

/** Checks a headers option and returns it with lower-case names and the client-owned names removed. */
export const checkHeaders = (
  input: unknown,
  path: Path
): { readonly issues: Array<SvcIssue>; readonly headers: Record<string, string> } => {
  const issues: Array<SvcIssue> = []
  const headers: Record<string, string> = {}
  const entries: Array<[string, unknown]> = typeof Headers !== "undefined" && input instanceof Headers
    ? [...input.entries()]
    : isRecord(input)
    ? Object.entries(input)
    : []
  if (!(typeof Headers !== "undefined" && input instanceof Headers) && !isRecord(input)) {
    issues.push({ path, message: "must be an object of header names to string values" })
  }
  for (const [name, value] of entries) {
    if (!headerName.test(name)) {
      issues.push({ path: [...path, name], message: "is not a valid header name" })
    } else if (typeof value !== "string") {
      issues.push({ path: [...path, name], message: "must be a string" })
    } else if (!isHeaderValue(value)) {
      issues.push({ path: [...path, name], message: "must not contain line breaks or NUL" })
    } else if (!ownedHeaders.has(name.toLowerCase())) {
      headers[name.toLowerCase()] = value
    }
  }
  return { issues, headers }
}

export interface RetrySettings {
  readonly maxRetries: number
  readonly initialDelayMs: number
  readonly maxDelayMs: number
}

export const defaultRetry: RetrySettings = { maxRetries: 2, initialDelayMs: 200, maxDelayMs: 5000 }

/** Checks a `retry` option (`false` or a partial object) and merges it over `base`. */
export const checkRetry = (
  input: unknown,
  path: Path,
  base: RetrySettings | false
): { readonly issues: Array<SvcIssue>; readonly retry: RetrySettings | false } => {
  if (input === false) return { issues: [], retry: false }
  if (!isRecord(input)) {
    return { issues: [{ path, message: "must be false or an object" }], retry: false }
  }
  const issues = checkKnownKeys(input, ["maxRetries", "initialDelayMs", "maxDelayMs"], path)
  const from = base === false ? defaultRetry : base
  const pick = (key: keyof RetrySettings, max: number): number => {
    const value = input[key]
    if (value === undefined) return from[key]
    issues.push(...checkInteger(value, [...path, key], 0, max))
    return value as number
  }
  const retry = {
    maxRetries: pick("maxRetries", 10),
    initialDelayMs: pick("initialDelayMs", MAX_TIMER_MS),
    maxDelayMs: pick("maxDelayMs", MAX_TIMER_MS)
  }
  return { issues, retry }
}
