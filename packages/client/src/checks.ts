import type { SvcIssue } from "./errors.js"

/*
 * Small validators shared by client options and call options. Each returns the issues it found;
 * messages never repeat the value checked, since it may be a secret.
 */

export type Path = ReadonlyArray<string | number>

export const MAX_TIMER_MS = 2_147_483_647

export const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** An integer from `min` to `max`. */
export const isIntegerIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= min && value <= max

export const integerIssue = (path: Path, min: number, max: number): SvcIssue => ({
  path,
  message: `must be an integer from ${min} to ${max}`
})

export const checkInteger = (value: unknown, path: Path, min: number, max: number): Array<SvcIssue> =>
  isIntegerIn(value, min, max) ? [] : [integerIssue(path, min, max)]

export const checkKnownKeys = (value: Record<string, unknown>, known: ReadonlyArray<string>, path: Path) =>
  Object.keys(value).filter((key) => !known.includes(key)).map((key): SvcIssue => ({
    path: [...path, key],
    message: `is not a known option (expected one of ${known.join(", ")})`
  }))

/** RFC 9110 field name: a token. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/**
 * RFC 9110 field value, ASCII only: visible characters (0x21-0x7E), with spaces and horizontal
 * tabs allowed inside but not at either end. Anything else (non-ASCII, control characters, CR, LF,
 * NUL) would make fetch throw or split the header, so it is refused before sending.
 */
const headerValue = /^(?:[\x21-\x7E](?:[\t\x20-\x7E]*[\x21-\x7E])?)?$/

/** A header value as sent: RFC 9110 visible ASCII, inner spaces and tabs, no surrounding white space. */
export const isHeaderValue = (value: string): boolean => headerValue.test(value)

/** A header name as sent: an RFC 9110 token. */
export const isHeaderName = (name: string): boolean => headerName.test(name)

/** Header names fetch forbids, or that would break the request framing or routing. */
const forbiddenHeaders: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "expect",
  "host",
  "content-length",
  "te",
  "trailer"
])

export const isForbiddenHeader = (name: string): boolean => {
  const lower = name.toLowerCase()
  return forbiddenHeaders.has(lower) || lower.startsWith("proxy-") || lower.startsWith("sec-")
}

/** HTTP white space fetch strips from both ends of a value. */
const trimHeaderValue = (value: string): string => value.replace(/^[\t ]+|[\t ]+$/g, "")

/** Header names the client sets itself; a caller's header of these names is replaced. */
export const ownedHeaders: ReadonlySet<string> = new Set([
  "accept",
  "authorization",
  "content-type",
  "x-request-id",
  "x-svc-version",
  "x-svc-policy-contract"
])

/**
 * Extra request headers: a plain object or a `Headers`. Names the client owns (`authorization`,
 * `x-request-id`, `x-svc-version`, …) are replaced.
 *
 * @example
 * ```ts
 * import { createSvcClient, type HeadersInput } from "@svc/client"
 *
 * // An API gateway in front of svc wants its own token on every call.
 * const gatewayHeaders: HeadersInput = new Headers({ "x-gateway-token": process.env.GATEWAY_TOKEN ?? "" })
 * const svc = createSvcClient({ baseUrl: "https://gateway.example.com/consent", headers: gatewayHeaders })
 * ```
 */
export type HeadersInput = Readonly<Record<string, string>> | Headers

const describeThrown = (error: unknown): string => {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return "an unreadable error"
  }
}

/** An issue for a value whose reading threw (a throwing getter, a hostile proxy). */
export const unreadable = (path: Path, error: unknown): SvcIssue => ({
  path,
  message: `could not be read (${describeThrown(error).slice(0, 200)})`
})

/**
 * Runs `check`; if reading the input throws (getters, proxies), the check becomes one issue at
 * `path` instead of an exception.
 */
export const guarded = <T>(path: Path, check: () => T, fallback: (issue: SvcIssue) => T): T => {
  try {
    return check()
  } catch (error) {
    return fallback(unreadable(path, error))
  }
}

/**
 * Reads an options object once into a plain object: every own enumerable property, each read
 * guarded. A property whose getter throws becomes an issue at its path (and is left out); keys
 * that cannot even be listed make one issue at `path`. The `known` names are read too, inherited
 * or not (an options class with getters works). Returns `undefined` for a non-object.
 */
export const snapshot = (
  input: unknown,
  path: Path,
  issues: Array<SvcIssue>,
  known: ReadonlyArray<string> = []
): Record<string, unknown> | undefined => {
  let keys: Array<string>
  try {
    if (!isRecord(input)) return undefined
    keys = [...new Set([...Object.keys(input), ...known])]
  } catch (error) {
    issues.push(unreadable(path, error))
    return {}
  }
  const copy: Record<string, unknown> = {}
  for (const key of keys) {
    try {
      copy[key] = input[key]
    } catch (error) {
      issues.push(unreadable([...path, key], error))
    }
  }
  return copy
}

const isHeadersInstance = (input: unknown): input is Headers =>
  typeof Headers !== "undefined" && input instanceof Headers

/** Checks a headers option and returns it with lower-case names and the client-owned names removed. */
export const checkHeaders = (
  input: unknown,
  path: Path
): { readonly issues: Array<SvcIssue>; readonly headers: Record<string, string> } =>
  guarded(path, () => {
    const issues: Array<SvcIssue> = []
    const headers: Record<string, string> = {}
    let entries: Array<[string, unknown]>
    if (isHeadersInstance(input)) {
      entries = [...input.entries()]
    } else {
      const copy = snapshot(input, path, issues)
      if (copy === undefined) {
        return { issues: [{ path, message: "must be an object of header names to string values" }], headers }
      }
      entries = Object.entries(copy)
    }
    for (const [name, raw] of entries) {
      const at = [...path, name]
      if (!isHeaderName(name)) {
        issues.push({ path: at, message: "is not a valid header name (RFC 9110 token characters only)" })
      } else if (isForbiddenHeader(name)) {
        issues.push({ path: at, message: "is a header name fetch forbids or that would break the request" })
      } else if (typeof raw !== "string") {
        issues.push({ path: at, message: "must be a string" })
      } else {
        const value = trimHeaderValue(raw)
        if (!isHeaderValue(value)) {
          issues.push({
            path: at,
            message: "must contain only visible ASCII characters, spaces and tabs (no control or non-ASCII characters)"
          })
        } else if (!ownedHeaders.has(name.toLowerCase())) {
          headers[name.toLowerCase()] = value
        }
      }
    }
    return { issues, headers }
  }, (issue) => ({ issues: [issue], headers: {} }))

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
  const issues: Array<SvcIssue> = []
  const known = ["maxRetries", "initialDelayMs", "maxDelayMs"]
  const copy = snapshot(input, path, issues, known)
  if (copy === undefined) {
    return { issues: [{ path, message: "must be false or an object" }], retry: false }
  }
  issues.push(...checkKnownKeys(copy, known, path))
  const from = base === false ? defaultRetry : base
  const pick = (key: keyof RetrySettings, max: number): number => {
    const value = copy[key]
    if (value === undefined) return from[key]
    if (isIntegerIn(value, 0, max)) return value
    issues.push(integerIssue([...path, key], 0, max))
    return from[key]
  }
  const retry = {
    maxRetries: pick("maxRetries", 10),
    initialDelayMs: pick("initialDelayMs", MAX_TIMER_MS),
    maxDelayMs: pick("maxDelayMs", MAX_TIMER_MS)
  }
  return { issues, retry }
}
