import {
  checkHeaders,
  checkKnownKeys,
  checkRetry,
  defaultRetry,
  guarded,
  type HeadersInput,
  integerIssue,
  isHeaderValue,
  isIntegerIn,
  MAX_TIMER_MS,
  type RetrySettings,
  snapshot
} from "./checks.js"
import { SvcConfigurationError, type SvcIssue } from "./errors.js"
import type { SvcEvent } from "./events.js"

/**
 * A fetch implementation; the client calls it with a `URL` and a `RequestInit`.
 *
 * @example
 * ```ts
 * import { createSvcClient, type SvcFetch } from "@svc/client"
 *
 * // A deploy gate's test: a fetch that answers like an svc whose migrations are still pending.
 * const pendingMigrations: SvcFetch = async (url) =>
 *   url.pathname.endsWith("/health/ready")
 *     ? Response.json({ message: "Migrations pending", cause: { code: "NOT_READY" } }, { status: 503 })
 *     : new Response(null, { status: 404 })
 * const svc = createSvcClient({ baseUrl: "https://consent.test", fetch: pendingMigrations, retry: false })
 * const ready = await svc.ready() // { ok: false, error: SvcError { code: "NOT_READY", status: 503 } }
 * ```
 */
export type SvcFetch = (input: URL, init: RequestInit) => Promise<Response>

/**
 * Retry settings: how often, and how long to wait between attempts (full jitter, doubling per retry).
 *
 * @example
 * ```ts
 * import { createSvcClient, type SvcRetryOptions } from "@svc/client"
 *
 * // A batch job may wait longer than a request handler: more retries, a longer cap.
 * const patient: SvcRetryOptions = { maxRetries: 6, initialDelayMs: 500, maxDelayMs: 30_000 }
 * const svc = createSvcClient({
 *   baseUrl: "https://consent.example.com",
 *   apiKey: process.env.SVC_API_KEY,
 *   retry: patient
 * })
 * ```
 */
export interface SvcRetryOptions {
  /** 0 to 10; default 2 (up to 3 attempts). */
  readonly maxRetries?: number | undefined
  /** Integer ms; default 200. */
  readonly initialDelayMs?: number | undefined
  /** Integer ms; default 5000. A `Retry-After` longer than this stops retrying. */
  readonly maxDelayMs?: number | undefined
}

/**
 * Options of `createSvcClient`. Only `baseUrl` is required; every option is checked when the client
 * is created.
 *
 * @example
 * ```ts
 * import { createSvcClient, type SvcClientOptions } from "@svc/client"
 *
 * // One place for the app's client settings; the key comes from the app's own configuration.
 * const options = {
 *   baseUrl: "https://consent.example.com/consent",
 *   apiKey: process.env.SVC_API_KEY,
 *   timeoutMs: 3000,
 *   retry: { maxRetries: 1 },
 *   onEvent: (event) => {
 *     if (event.type === "retry") console.warn("svc retry", event.path, event.error.code)
 *   }
 * } satisfies SvcClientOptions
 * const svc = createSvcClient(options)
 * ```
 */
export interface SvcClientOptions {
  /** Backend URL including its mount path; no query string or fragment. */
  readonly baseUrl: string | URL
  /** Sent as `Authorization: Bearer <key>`; enables the key-only methods. Server side only. */
  readonly apiKey?: string | undefined
  /** Default `globalThis.fetch` (looked up at each request). */
  readonly fetch?: SvcFetch | undefined
  /** Sent with every request (client-owned names are replaced). */
  readonly headers?: HeadersInput | undefined
  /** Deadline per attempt, including reading the body; integer 1 to 2147483647; default 10000. */
  readonly timeoutMs?: number | undefined
  /** Retry settings, or `false` for never. */
  readonly retry?: SvcRetryOptions | false | undefined
  /** Called for each request, response and retry; an error it throws is ignored. */
  readonly onEvent?: ((event: SvcEvent) => void) | undefined
}

/** Options after validation, in the form the runner uses. */
export interface ResolvedOptions {
  /** Without a trailing slash; request paths (`/status`) are appended. */
  readonly baseUrl: string
  readonly apiKey: string | undefined
  readonly fetch: SvcFetch | undefined
  /** Lower-case names, client-owned names removed. */
  readonly headers: Readonly<Record<string, string>>
  readonly timeoutMs: number
  readonly retry: RetrySettings | false
  readonly onEvent: ((event: SvcEvent) => void) | undefined
}

const knownOptions = ["baseUrl", "apiKey", "fetch", "headers", "timeoutMs", "retry", "onEvent"]
const localHosts = new Set(["localhost", "127.0.0.1", "[::1]"])

const checkBaseUrl = (
  input: unknown,
  hasKey: boolean
): { readonly issues: Array<SvcIssue>; readonly baseUrl: string } => {
  const fail = (message: string) => ({ issues: [{ path: ["baseUrl"], message }], baseUrl: "" })
  if (input === undefined) return fail("is required")
  if (typeof input !== "string" && !(input instanceof URL)) return fail("must be a string or a URL")
  const text = input.toString()
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return fail("is not an absolute URL")
  }
  const issues: Array<SvcIssue> = []
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    issues.push({ path: ["baseUrl"], message: "must use http: or https:" })
  }
  // `new URL` drops an empty `?` or `#`, so look at the text as written too.
  if (url.search !== "" || text.includes("?"))
    issues.push({ path: ["baseUrl"], message: "must not have a query string" })
  if (url.hash !== "" || text.includes("#")) issues.push({ path: ["baseUrl"], message: "must not have a fragment" })
  if (url.username !== "" || url.password !== "") {
    issues.push({ path: ["baseUrl"], message: "must not contain credentials" })
  }
  if (hasKey && url.protocol === "http:" && !localHosts.has(url.hostname)) {
    issues.push({
      path: ["baseUrl"],
      message: "must use https: when an apiKey is set (http: is allowed only for localhost, 127.0.0.1 and [::1])"
    })
  }
  return { issues, baseUrl: url.href.replace(/\/+$/, "") }
}

const isIssues = (result: ResolvedOptions | ReadonlyArray<SvcIssue>): result is ReadonlyArray<SvcIssue> =>
  Array.isArray(result)

// A function is all that can be checked of a fetch or a listener before it is called.
const isFetch = (value: unknown): value is SvcFetch => typeof value === "function"
const isListener = (value: unknown): value is (event: SvcEvent) => void => typeof value === "function"

/**
 * Validates every option and throws one `SvcConfigurationError` listing all problems. Options are
 * read once; a throwing getter or proxy anywhere becomes an issue, never another exception.
 */
export const resolveOptions = (input: unknown): ResolvedOptions => {
  let result: ResolvedOptions | ReadonlyArray<SvcIssue>
  try {
    result = checkOptions(input)
  } catch (error) {
    // Last line of defence: whatever escaped the guarded reads is still a configuration error.
    result = guarded([], () => {
      throw error
    }, (issue) => [issue])
  }
  if (isIssues(result)) throw new SvcConfigurationError(result)
  return result
}

const checkOptions = (input: unknown): ResolvedOptions | ReadonlyArray<SvcIssue> => {
  const unreadable: Array<SvcIssue> = []
  const options = snapshot(input, [], unreadable, knownOptions)
  if (options === undefined) return [{ path: [], message: "options must be an object with at least baseUrl" }]
  if (unreadable.some((issue) => issue.path.length === 0)) return unreadable
  const issues = checkKnownKeys(options, knownOptions, [])

  const apiKey = options["apiKey"]
  let key: string | undefined
  if (apiKey !== undefined) {
    if (typeof apiKey !== "string" || apiKey.length === 0) {
      issues.push({ path: ["apiKey"], message: "must be a non-empty string" })
    } else if (isHeaderValue(apiKey)) {
      key = apiKey
    } else {
      // Never the key itself: it is a secret.
      issues.push({
        path: ["apiKey"],
        message: "must contain only visible ASCII characters (inner spaces allowed), with no control or " +
          "non-ASCII characters and no surrounding white space"
      })
    }
  }
  const base = guarded(["baseUrl"], () => checkBaseUrl(options["baseUrl"], apiKey !== undefined), (issue) => ({
    issues: [issue],
    baseUrl: ""
  }))
  issues.push(...base.issues)

  const fetchOption = options["fetch"]
  const fetchFunction = isFetch(fetchOption) ? fetchOption : undefined
  if (fetchOption !== undefined && fetchFunction === undefined) {
    issues.push({ path: ["fetch"], message: "must be a function" })
  }
  if (fetchOption === undefined && typeof globalThis.fetch !== "function") {
    issues.push({ path: ["fetch"], message: "is required: this runtime has no global fetch" })
  }

  const headers = options["headers"] === undefined
    ? { issues: [], headers: {} }
    : checkHeaders(options["headers"], ["headers"])
  issues.push(...headers.issues)

  const timeoutOption = options["timeoutMs"] ?? 10_000
  let timeoutMs = 10_000
  if (isIntegerIn(timeoutOption, 1, MAX_TIMER_MS)) timeoutMs = timeoutOption
  else issues.push(integerIssue(["timeoutMs"], 1, MAX_TIMER_MS))

  const retry = options["retry"] === undefined
    ? { issues: [], retry: defaultRetry }
    : checkRetry(options["retry"], ["retry"], defaultRetry)
  issues.push(...retry.issues)

  const onEventOption = options["onEvent"]
  const onEvent = isListener(onEventOption) ? onEventOption : undefined
  if (onEventOption !== undefined && onEvent === undefined) {
    issues.push({ path: ["onEvent"], message: "must be a function" })
  }

  // An option that could not be read is reported once, not again as missing or invalid.
  const skipped = new Set(unreadable.map((issue) => issue.path[0]))
  const all = [...unreadable, ...issues.filter((issue) => !skipped.has(issue.path[0]))]
  if (all.length > 0) return all
  return {
    baseUrl: base.baseUrl,
    apiKey: key,
    fetch: fetchFunction,
    headers: headers.headers,
    timeoutMs,
    retry: retry.retry,
    onEvent
  }
}
