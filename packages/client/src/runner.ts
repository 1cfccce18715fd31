import { Either } from "effect"
import type { ResolvedCall } from "./call-options.js"
import { versionHeaders } from "./effect-client.js"
import { SvcError, type SvcErrorCode, type SvcIssue, formatIssue } from "./errors.js"
import { emit } from "./events.js"
import { documentedCodes } from "./documented.js"
import { type AttemptContext, backendError, describeParseError, makeError, unexpectedResponse } from "./failures.js"
import type { ResolvedOptions } from "./options.js"
import type { SvcResult, SvcSuccess } from "./result.js"
import { nextDelay } from "./retry.js"
import { type Answer, type Call, type Decoded, mergeHeaders } from "./transport.js"

/** One backend call as a method describes it; the runner adds headers, timeouts, retries and events. */
export interface Operation<A> {
  /** `required`: key-only method. `verify`: sends the key when the client has one. */
  readonly auth: Auth
  /** The endpoint and its request parts. */
  readonly call: Call
  /** What the contract makes of an answer, its success body shaped into `data` (a string: why it is unexpected). */
  readonly decode: (answer: Answer) => Decoded<{ readonly data: A } | string>
}

type Auth = "required" | "verify" | "none"

/** An operation whose `data` is `toData` of the success body the contract decoded. */
export const operation = <V, A>(
  auth: Auth,
  call: Call<V>,
  toData: (value: V, answer: Answer) => { readonly data: A } | string
): Operation<A> => ({
  auth,
  call,
  decode: (answer) => {
    const decoded = call.endpoint.decode(answer)
    return decoded._tag === "Success" ? { _tag: "Success", value: toData(decoded.value, answer) } : decoded
  }
})

/** An operation whose `data` is the success body the contract decoded. */
export const bodyOperation = <V>(auth: Auth, call: Call<V>): Operation<V> =>
  operation(auth, call, (value) => ({ data: value }))

export interface Runtime {
  readonly options: ResolvedOptions
}

export const failure = <C extends SvcErrorCode>(error: SvcError<C>) => ({ ok: false, error }) as const

export const invalidInput = (issues: ReadonlyArray<SvcIssue>) =>
  failure(
    new SvcError({ code: "INVALID_INPUT", message: `Invalid input: ${issues.map(formatIssue).join("; ")}`, issues })
  )

export const missingApiKey = (name: string) =>
  failure(
    new SvcError({
      code: "MISSING_API_KEY",
      message: `${name} needs an API key; create the client with the apiKey option (server side only)`
    })
  )

type Outcome<A> = SvcSuccess<A> | SvcError
interface Attempted<A> {
  readonly outcome: Outcome<A> | "aborted"
  readonly answer: Answer | undefined
}

/** What the contract makes of a whole answer: the result of the attempt. */
const settle = <A>(operation: Operation<A>, answer: Answer, context: AttemptContext): Outcome<A> => {
  const decoded = operation.decode(answer)
  if (decoded._tag === "Failure") return backendError(decoded.error, context, answer)
  if (decoded._tag === "Undocumented") {
    return unexpectedResponse(
      context,
      answer,
      decoded.issue === undefined ? undefined : describeParseError(decoded.issue)
    )
  }
  const shaped = decoded.value
  if (typeof shaped === "string") {
    return makeError({
      code: "UNEXPECTED_RESPONSE",
      message: `Unexpected response: HTTP ${answer.status}, body ${shaped}`,
      status: answer.status,
      requestId: context.requestId
    })
  }
  return { ok: true, data: shaped.data, status: answer.status, requestId: context.requestId, headers: answer.headers }
}

const messageOf = (cause: unknown) => (cause instanceof Error ? `: ${cause.message}` : "")

/*
 * One attempt: one `fetch` with its own AbortController, aborted on the per-attempt deadline or
 * the caller's signal (which stops the body too). The answer is read whole, then decoded by the
 * contract synchronously. Never rejects.
 */
const attempt = async <A>(
  runtime: Runtime,
  operation: Operation<A>,
  call: ResolvedCall,
  number: number
): Promise<Attempted<A>> => {
  const { requestId, signal } = call
  const { apiKey, onEvent } = runtime.options
  const { endpoint } = operation.call
  const context: AttemptContext = { requestId, documented: documentedCodes(endpoint.method, endpoint.path) }
  const base = { method: endpoint.method, path: endpoint.path, requestId, attempt: number }
  if (onEvent !== undefined) emit(onEvent, { type: "request", ...base })
  const prepared = endpoint.prepare(runtime.options.baseUrl, operation.call.parts)
  if (Either.isLeft(prepared)) {
    // Methods check their input first, so this is a last line of defence.
    const outcome = makeError({ code: "INVALID_INPUT", message: `Invalid input: ${describeParseError(prepared.left)}` })
    return { outcome, answer: undefined }
  }
  const request = prepared.right
  const started = performance.now()
  const controller = new AbortController()
  let ended: "timeout" | "aborted" | undefined
  const stop = (why: "timeout" | "aborted") => () => {
    ended ??= why
    controller.abort()
  }
  const onAbort = stop("aborted")
  const timer = setTimeout(stop("timeout"), call.timeoutMs)
  signal?.addEventListener("abort", onAbort, { once: true })
  // The signal may have fired during the request event's handler.
  if (signal?.aborted === true) onAbort()
  let status: number | undefined
  let answer: Answer | undefined
  const interrupted = (): Outcome<A> | "aborted" =>
    ended === "aborted" ? "aborted" : makeError({
      code: "TIMEOUT",
      message: `The attempt took longer than ${call.timeoutMs} ms` +
        (status === undefined ? "" : " (while reading the response body)"),
      status,
      requestId
    })
  try {
    const headers = mergeHeaders(call.headers, request.headers, versionHeaders, {
      "x-request-id": requestId,
      ...(apiKey !== undefined && operation.auth !== "none" ? { authorization: `Bearer ${apiKey}` } : {})
    })
    let response: Response
    try {
      response = await (runtime.options.fetch ?? globalThis.fetch)(request.url, {
        method: request.method,
        headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        signal: controller.signal
      })
    } catch (cause) {
      if (ended !== undefined) return { outcome: interrupted(), answer }
      const outcome = makeError({
        code: "NETWORK_ERROR",
        message: `The request failed before a response arrived${messageOf(cause)}`,
        requestId,
        cause
      })
      return { outcome, answer }
    }
    status = response.status
    const responseHeaders: Record<string, string> = {}
    response.headers.forEach((value, name) => {
      responseHeaders[name] = value
    })
    let body: Uint8Array
    try {
      body = new Uint8Array(await response.arrayBuffer())
    } catch (cause) {
      if (ended !== undefined) return { outcome: interrupted(), answer }
      const outcome = makeError({
        code: "NETWORK_ERROR",
        message: "The connection failed while reading the response body",
        status,
        requestId,
        cause
      })
      return { outcome, answer }
    }
    answer = { status, headers: responseHeaders, body }
    try {
      return { outcome: settle(operation, answer, context), answer }
    } catch {
      return { outcome: unexpectedResponse(context, answer, "could not be decoded"), answer }
    }
  } catch (defect) {
    const outcome = makeError({
      code: "NETWORK_ERROR",
      message: `The request failed unexpectedly: ${defect instanceof Error ? defect.message : String(defect)}`,
      requestId,
      cause: defect
    })
    return { outcome, answer }
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener("abort", onAbort)
    if (onEvent !== undefined && status !== undefined) {
      emit(onEvent, {
        type: "response",
        ...base,
        status,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000
      })
    }
  }
}

/** Waits `ms`, or less when the signal aborts; resolves to whether it was aborted. */
const wait = (ms: number, signal: AbortSignal | undefined): Promise<boolean> =>
  new Promise((resolve) => {
    if (signal?.aborted === true) return resolve(true)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(true)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve(false)
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })

const abortedError = (signal: AbortSignal, requestId: string | undefined) => {
  const reason: unknown = signal.reason
  const name = reason instanceof Error && reason.name !== "AbortError" ? ` (${reason.name})` : ""
  return makeError({ code: "ABORTED", message: `The call was aborted by its signal${name}`, requestId, cause: reason })
}

/** Runs an operation to a result: attempts, retry waits, events. Never rejects. */
export const run = async <A>(
  runtime: Runtime,
  operation: Operation<A>,
  call: ResolvedCall
): Promise<SvcResult<A>> => {
  const { signal, requestId } = call
  try {
    if (signal?.aborted === true) return failure(abortedError(signal, undefined))
    for (let number = 0;; number++) {
      const { outcome, answer } = await attempt(runtime, operation, call, number)
      if (outcome === "aborted") return failure(abortedError(signal!, requestId))
      if (!(outcome instanceof SvcError)) return outcome
      const delayMs = nextDelay(outcome, answer?.headers["retry-after"], number, call.retry)
      if (delayMs === undefined) return failure(outcome)
      emit(runtime.options.onEvent, {
        type: "retry",
        path: operation.call.endpoint.path,
        attempt: number + 1,
        delayMs,
        error: outcome,
        requestId
      })
      if (await wait(delayMs, signal)) return failure(abortedError(signal!, requestId))
    }
  } catch (cause) {
    // Only a bug can land here; a method still resolves to a result.
    return failure(makeError({ code: "NETWORK_ERROR", message: "The call failed unexpectedly", requestId, cause }))
  }
}
