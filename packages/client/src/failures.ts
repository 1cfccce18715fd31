import { HttpClientError, type HttpClientResponse } from "@effect/platform"
import { Effect, ParseResult } from "effect"
import { SvcError, type SvcErrorCode, type StalePolicyReason, stalePolicyReasons } from "./errors.js"
import { isTransient } from "./retry.js"

/*
 * Turns whatever one attempt of the derived client failed with into an `SvcError`. The contract's
 * error classes carry their backend code as a static `code`; everything else is transport,
 * timeout, or a response the contract does not describe.
 */

export interface AttemptContext {
  readonly requestId: string
  readonly response: HttpClientResponse.HttpClientResponse | undefined
  /** The backend codes the method's contract declares; a body with one of them keeps its code. */
  readonly documented?: ReadonlySet<string> | undefined
}

export const makeError = (init: {
  readonly code: SvcErrorCode
  readonly message: string
  readonly requestId?: string | undefined
  readonly status?: number | undefined
  readonly reason?: StalePolicyReason | undefined
  readonly serverCode?: string | undefined
  readonly cause?: unknown
}): SvcError => new SvcError({ ...init, retryable: isTransient(init.code, init.status) })

const backendCodeOf = (error: unknown): SvcErrorCode | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const code = (error.constructor as { readonly code?: unknown }).code
  return typeof code === "string" ? (code as SvcErrorCode) : undefined
}

const knownReason = (reason: unknown): StalePolicyReason | undefined =>
  stalePolicyReasons.find((known) => known === reason)

/** First problem of a decode failure, as `path: message`, without the offending value. */
export const describeParseError = (error: ParseResult.ParseError): string => {
  const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  if (first === undefined) return "does not match the documented shape"
  const path = first.path.filter((p) => typeof p !== "symbol").join(".")
  const message = withoutValue(first.message)
  return path === "" ? message : `${path}: ${message}`
}

/** Schema messages end with `, actual <value>`; values may be secrets, so they are cut. */
export const withoutValue = (message: string): string => message.replace(/,\s*actual[\s\S]*$/, "")

const serverBody = (body: ArrayBuffer | undefined): { code?: string; message?: string; reason?: unknown } => {
  if (body === undefined || body.byteLength === 0 || body.byteLength > 65_536) return {}
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(body))
    if (typeof parsed !== "object" || parsed === null) return {}
    const { cause, message } = parsed as { cause?: { code?: unknown; reason?: unknown }; message?: unknown }
    return {
      ...(typeof cause?.code === "string" ? { code: cause.code, reason: cause.reason } : {}),
      ...(typeof message === "string" ? { message: message.slice(0, 500) } : {})
    }
  } catch {
    return {}
  }
}

/** A response the contract does not describe; keeps the backend's own code when the body has one. */
export const unexpectedResponse = (
  context: AttemptContext & { readonly response: HttpClientResponse.HttpClientResponse },
  detail?: string
): Effect.Effect<SvcError> =>
  Effect.map(Effect.option(context.response.arrayBuffer), (body) => {
    const { status } = context.response
    const server = serverBody(body._tag === "Some" ? body.value : undefined)
    if (status >= 400 && server.code !== undefined && context.documented?.has(server.code) === true) {
      // A documented code whose body the contract could not decode (a STALE_POLICY without a
      // string reason): still that code, never "undocumented".
      return makeError({
        code: server.code as SvcErrorCode,
        message: server.message ?? `The backend answered HTTP ${status} with code ${server.code}`,
        status,
        requestId: context.requestId,
        reason: server.code === "STALE_POLICY" ? knownReason(server.reason) : undefined
      })
    }
    const contentType = context.response.headers["content-type"]
    const message = server.code !== undefined
      ? `The backend answered HTTP ${status} with code ${server.code}, which is not documented for this call` +
        (server.message === undefined ? "" : `: ${server.message}`)
      : `Unexpected response: HTTP ${status}${contentType === undefined ? "" : ` (${contentType})`}` +
        (detail === undefined ? "" : `, body ${detail}`)
    return makeError({
      code: "UNEXPECTED_RESPONSE",
      message,
      status,
      requestId: context.requestId,
      serverCode: server.code
    })
  })

export const classifyFailure = (error: unknown, context: AttemptContext): Effect.Effect<SvcError> => {
  const { response, requestId, documented } = context
  const code = backendCodeOf(error)
  if (code !== undefined && response !== undefined) {
    return Effect.succeed(makeError({
      code,
      message: (error as { message: string }).message,
      status: response.status,
      requestId,
      reason: code === "STALE_POLICY" ? knownReason((error as { reason?: unknown }).reason) : undefined
    }))
  }
  if (HttpClientError.isHttpClientError(error)) {
    if (error._tag === "RequestError") {
      const cause = error.cause
      const detail = cause instanceof Error ? `: ${cause.message}` : ""
      return Effect.succeed(makeError({
        code: "NETWORK_ERROR",
        message: `The request failed before a response arrived${detail}`,
        requestId,
        cause
      }))
    }
    if (error.cause !== undefined) {
      return Effect.succeed(makeError({
        code: "NETWORK_ERROR",
        message: "The connection failed while reading the response body",
        status: error.response.status,
        requestId,
        cause: error.cause
      }))
    }
  }
  if (ParseResult.isParseError(error) && response === undefined) {
    // The request could not be encoded; methods validate first, so this is a last line of defence.
    return Effect.succeed(makeError({
      code: "INVALID_INPUT",
      message: `Invalid input: ${describeParseError(error)}`
    }))
  }
  if (response !== undefined) {
    return unexpectedResponse(
      { requestId, response, documented },
      ParseResult.isParseError(error) ? describeParseError(error) : undefined
    )
  }
  return Effect.succeed(makeError({
    code: "NETWORK_ERROR",
    message: "The request failed before a response arrived",
    requestId,
    cause: error
  }))
}
