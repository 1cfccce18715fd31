import { ParseResult, Predicate } from "effect"
import { isSvcErrorCode, SvcError, type SvcErrorCode, type StalePolicyReason, stalePolicyReasons } from "./errors.js"
import { isTransient } from "./retry.js"
import type { Answer } from "./transport.js"

/*
 * Turns an answer the contract does not call a success into an `SvcError`. The contract's error
 * classes carry their backend code as a static `code`; anything else is a response the contract
 * does not describe. Transport failures, timeouts and aborts are the runner's.
 */

export interface AttemptContext {
  readonly requestId: string
  /** The backend codes the method's contract declares; a body with one of them keeps its code. */
  readonly documented?: ReadonlySet<string> | undefined
}

export const makeError = <C extends SvcErrorCode>(init: {
  readonly code: C
  readonly message: string
  readonly requestId?: string | undefined
  readonly status?: number | undefined
  readonly reason?: StalePolicyReason | undefined
  readonly serverCode?: string | undefined
  readonly cause?: unknown
}): SvcError<C> => new SvcError({ ...init, retryable: isTransient(init.code, init.status) })

const backendCodeOf = (error: unknown): SvcErrorCode | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const code = Predicate.hasProperty(error.constructor, "code") ? error.constructor.code : undefined
  return isSvcErrorCode(code) ? code : undefined
}

const propertyOf = (value: unknown, key: PropertyKey): unknown =>
  Predicate.hasProperty(value, key) ? value[key] : undefined

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

const serverBody = (body: Uint8Array): { code?: string; message?: string; reason?: unknown } => {
  if (body.byteLength === 0 || body.byteLength > 65_536) return {}
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(body))
    if (typeof parsed !== "object" || parsed === null) return {}
    const cause = propertyOf(parsed, "cause")
    const code = propertyOf(cause, "code")
    const message = propertyOf(parsed, "message")
    return {
      ...(typeof code === "string" ? { code, reason: propertyOf(cause, "reason") } : {}),
      ...(typeof message === "string" ? { message: message.slice(0, 500) } : {})
    }
  } catch {
    return {}
  }
}

/** A response the contract does not describe; keeps the backend's own code when the body has one. */
export const unexpectedResponse = (context: AttemptContext, answer: Answer, detail?: string): SvcError => {
  const { status } = answer
  const server = serverBody(answer.body)
  if (status >= 400 && isSvcErrorCode(server.code) && context.documented?.has(server.code) === true) {
    // A documented code whose body the contract could not decode (a STALE_POLICY without a
    // string reason): still that code, never "undocumented".
    return makeError({
      code: server.code,
      message: server.message ?? `The backend answered HTTP ${status} with code ${server.code}`,
      status,
      requestId: context.requestId,
      reason: server.code === "STALE_POLICY" ? knownReason(server.reason) : undefined
    })
  }
  const contentType = answer.headers["content-type"]
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
}

/** A documented error body, decoded by the contract into its error class (which names the code). */
export const backendError = (error: unknown, context: AttemptContext, answer: Answer): SvcError => {
  const code = backendCodeOf(error)
  if (code === undefined) return unexpectedResponse(context, answer)
  return makeError({
    code,
    message: String(propertyOf(error, "message")),
    status: answer.status,
    requestId: context.requestId,
    reason: code === "STALE_POLICY" ? knownReason(propertyOf(error, "reason")) : undefined
  })
}
