import { StandardConsentRecord } from "@svc/schema"
import { Either, Schema } from "effect"
import { resolveCall, type SvcCallOptions } from "../call-options.js"
import { versionHeaders } from "../effect-client.js"
import type { SvcIssue } from "../errors.js"
import { makeError, unexpectedResponse } from "../failures.js"
import type { SvcFailure, SvcResult } from "../result.js"
import { failure, invalidInput, missingApiKey, type Runtime } from "../runner.js"
import { checkPart, endpointOf, objectIssue } from "../validate.js"
import type { Plain } from "../plain.js"

/**
 * Which records `consents.export` streams: a period of at most 366 days, optionally one policy type,
 * domain or policy.
 *
 * @example
 * ```ts
 * import type { ConsentExportInput } from "@svc/client"
 *
 * // Last month's cookie banner consents of one shop, for the monthly archive.
 * const lastMonth = (today: Date): ConsentExportInput => {
 *   const from = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1))
 *   const to = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 0))
 *   return { from, to: to.toISOString().slice(0, 10), type: "cookie_banner", domain: "shop.example.com" }
 * }
 * ```
 */
export interface ConsentExportInput {
  /** Start of the period: a `Date` or an ISO 8601 string (a bare date starts its UTC day). */
  readonly from: Date | string
  /** End of the period, inclusive (a bare date covers its UTC day); at most 366 days after `from`. */
  readonly to: Date | string
  readonly type?: string | undefined
  readonly domain?: string | undefined
  /** A policy rule id or a legal document release id. */
  readonly policyId?: string | undefined
  /**
   * Each record with `logProof`, its inclusion proof in the transparency log, every one against
   * the checkpoint that was latest when the export started (check them offline with
   * `verifyConsentProof`); `null` for a record in no signed checkpoint yet.
   */
  readonly proofs?: boolean | undefined
}

/**
 * One exported record: the ISO/IEC TS 27560-shaped `StandardConsentRecord`, dates as `Date`s.
 *
 * @example
 * ```ts
 * import type { ExportedConsentRecord } from "@svc/client"
 *
 * // A warehouse row per record: where and when it was given, for which purposes, under which rule.
 * const toRow = (record: ExportedConsentRecord) => ({
 *   id: record.recordId,
 *   domain: record.controller.domain,
 *   givenAt: record.givenAt.toISOString(),
 *   granted: record.purposes.filter((purpose) => purpose.granted).map((purpose) => purpose.category).join(","),
 *   rule: record.notice.policyRuleId
 * })
 * ```
 */
export type ExportedConsentRecord = Plain<typeof StandardConsentRecord.Type>

/**
 * The codes `consents.export` can fail with (yielded once, as the last item).
 *
 * @example
 * ```ts
 * import type { ConsentExportCode } from "@svc/client"
 *
 * // The exit code of a nightly export job: 2 for a setup problem, 1 for anything worth a rerun.
 * const exitCode = (code: ConsentExportCode) =>
 *   code === "UNAUTHORIZED" || code === "MISSING_API_KEY" || code === "INVALID_INPUT" ? 2 : 1
 * ```
 */
export type ConsentExportCode =
  | "INVALID_INPUT"
  | "MISSING_API_KEY"
  | "NETWORK_ERROR"
  | "TIMEOUT"
  | "ABORTED"
  | "UNEXPECTED_RESPONSE"
  | "INVALID_REQUEST"
  | "UNAUTHORIZED"
  | "RATE_LIMITED"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "DATABASE_ERROR"
  | "INTERNAL_ERROR"

/**
 * `GET /consents/export` (API key) as an async iterable: one success result per record, read
 * from the NDJSON stream as it arrives, so a year of records never sits in memory. A failure
 * (before or during the stream) is yielded as one failed result and ends the iteration; the
 * iterable never throws. `timeoutMs` bounds the wait for the response to start, not the whole
 * stream; `signal` aborts it at any point.
 *
 * @example
 * ```ts
 * import { createSvcClient } from "@svc/client"
 * import { createWriteStream } from "node:fs"
 *
 * // A year of proof to an NDJSON archive, one record at a time.
 * const svc = createSvcClient({ baseUrl: "https://consent.example.com", apiKey: process.env.SVC_API_KEY })
 * const archive = createWriteStream("consents-2025.ndjson")
 * for await (const result of svc.consents.export({ from: "2025-01-01", to: "2025-12-31" })) {
 *   if (!result.ok) throw result.error // the stream ended early: rerun the job
 *   archive.write(`${JSON.stringify(result.data)}\n`)
 * }
 * archive.end()
 * ```
 */
export type ConsentExportMethod = (
  input: ConsentExportInput,
  options?: SvcCallOptions
) => AsyncIterable<SvcResult<ExportedConsentRecord, ConsentExportCode>>

const endpoint = endpointOf("records", "exportConsents")
const decodeRecord = Schema.decodeUnknownEither(StandardConsentRecord)
/** The backend codes the route documents (`export-codes.test.ts` checks them against the contract). */
export const exportBackendCodes = [
  "INVALID_REQUEST",
  "UNAUTHORIZED",
  "RATE_LIMITED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "DATABASE_ERROR",
  "INTERNAL_ERROR"
] as const satisfies ReadonlyArray<ConsentExportCode>
const documented: ReadonlySet<string> = new Set(exportBackendCodes)

const fail = (
  code: ConsentExportCode,
  message: string,
  extra: { status?: number; requestId?: string; serverCode?: string | undefined } = {}
): SvcFailure<ConsentExportCode> => failure(makeError({ code, message, ...extra }))

/**
 * A refused or undocumented answer, read as every other method reads one: a code the route
 * documents keeps its code; any other (a backend code this route does not document, an HTML
 * page) is `UNEXPECTED_RESPONSE`, the backend's own code kept in `serverCode`.
 */
const refused = (status: number, headers: Readonly<Record<string, string>>, body: Uint8Array, requestId: string) => {
  const error = unexpectedResponse({ requestId, documented }, { status, headers, body })
  const code = exportBackendCodes.find((known) => known === error.code) ?? "UNEXPECTED_RESPONSE"
  return fail(code, error.message, { status, requestId, serverCode: error.serverCode })
}

const messageOf = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

const isoOf = (value: unknown, path: string, issues: Array<SvcIssue>): string | undefined => {
  if (value instanceof Date && Number.isFinite(value.getTime())) return value.toISOString()
  if (typeof value === "string" && value !== "") return value
  issues.push({ path: [path], message: "must be a valid Date or ISO 8601 date string" })
  return undefined
}

async function* exportRecords(
  runtime: Runtime,
  input: ConsentExportInput,
  options: SvcCallOptions | undefined
): AsyncGenerator<SvcResult<ExportedConsentRecord, ConsentExportCode>> {
  const apiKey = runtime.options.apiKey
  if (apiKey === undefined) return yield missingApiKey("consents.export")
  const call = resolveCall(options, runtime.options)
  if ("issues" in call) return yield invalidInput(call.issues)
  const shape = objectIssue(input, [], "from and to")
  if (shape.length > 0) return yield invalidInput(shape)
  const issues: Array<SvcIssue> = []
  const params: Record<string, string> = { format: "ndjson" }
  const from = isoOf(input.from, "from", issues)
  const to = isoOf(input.to, "to", issues)
  if (from !== undefined) params.from = from
  if (to !== undefined) params.to = to
  for (const key of ["type", "domain", "policyId"] as const) {
    const value = input[key]
    if (value !== undefined) params[key] = value
  }
  // The contract's schema checks the value as the caller gives it (a boolean); the URL carries its text.
  issues.push(...checkPart(endpoint.urlParamsSchema, { ...params, proofs: input.proofs }))
  if (input.proofs !== undefined) params.proofs = String(input.proofs)
  if (issues.length > 0) return yield invalidInput(issues)

  const { requestId } = call.call
  const url = new URL(`${runtime.options.baseUrl}/consents/export?${new URLSearchParams(params).toString()}`)
  const controller = new AbortController()
  const outer = call.call.signal
  const onAbort = () => controller.abort(outer?.reason)
  outer?.addEventListener("abort", onAbort, { once: true })
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, call.call.timeoutMs)
  try {
    let response: Response
    try {
      response = await (runtime.options.fetch ?? fetch)(url, {
        headers: {
          ...runtime.options.headers,
          ...call.call.headers,
          ...versionHeaders,
          accept: "application/x-ndjson",
          authorization: `Bearer ${apiKey}`,
          "x-request-id": requestId
        },
        signal: controller.signal
      })
    } catch (cause) {
      if (timedOut) return yield fail("TIMEOUT", `No response within ${call.call.timeoutMs} ms`, { requestId })
      if (outer?.aborted === true) return yield fail("ABORTED", "The export was aborted", { requestId })
      return yield fail("NETWORK_ERROR", `Network error: ${messageOf(cause)}`, { requestId })
    } finally {
      clearTimeout(timer)
    }
    const status = response.status
    const headers = Object.fromEntries(response.headers)
    if (status !== 200 || response.body === null) {
      const body = await response.arrayBuffer().then((buffer) => new Uint8Array(buffer), () => new Uint8Array())
      return yield refused(status, headers, body, requestId)
    }
    const decoder = new TextDecoder()
    let buffered = ""
    const reader = response.body.getReader()
    const emit = (line: string): SvcResult<ExportedConsentRecord, ConsentExportCode> => {
      let parsed: unknown
      try {
        parsed = JSON.parse(line)
      } catch {
        return fail("UNEXPECTED_RESPONSE", "An export line is not JSON", { status, requestId })
      }
      const decoded = decodeRecord(parsed)
      return Either.isRight(decoded)
        ? { ok: true, data: decoded.right, status, requestId, headers }
        : fail("UNEXPECTED_RESPONSE", "An export line is not a StandardConsentRecord", { status, requestId })
    }
    while (true) {
      let chunk: ReadableStreamReadResult<Uint8Array>
      try {
        chunk = await reader.read()
      } catch (cause) {
        const code: ConsentExportCode = outer?.aborted === true ? "ABORTED" : "NETWORK_ERROR"
        return yield fail(code, `The export stream broke off: ${messageOf(cause)}`, {
          status,
          requestId
        })
      }
      buffered += chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true })
      let newline = buffered.indexOf("\n")
      while (newline !== -1) {
        const line = buffered.slice(0, newline)
        buffered = buffered.slice(newline + 1)
        if (line !== "") {
          const result = emit(line)
          yield result
          if (!result.ok) {
            await reader.cancel().catch(() => undefined)
            return
          }
        }
        newline = buffered.indexOf("\n")
      }
      if (chunk.done) {
        if (buffered !== "") yield emit(buffered)
        return
      }
    }
  } finally {
    outer?.removeEventListener("abort", onAbort)
  }
}

export const consentExportMethod = (runtime: Runtime): ConsentExportMethod => (input, options) =>
  exportRecords(runtime, input, options)
