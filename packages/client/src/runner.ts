import type { HttpClientResponse } from "@effect/platform"
import { Effect, Exit, FiberId, Runtime as EffectRuntime } from "effect"
import type { ResolvedCall } from "./call-options.js"
import { CurrentCall, type CallState, type SvcApiClient, versionHeaders } from "./effect-client.js"
import { SvcError, type SvcErrorCode, type SvcIssue, formatIssue } from "./errors.js"
import { emit } from "./events.js"
import { documentedCodes } from "./documented.js"
import { classifyFailure, makeError, unexpectedResponse } from "./failures.js"
import type { ResolvedOptions } from "./options.js"
import type { SvcResult, SvcSuccess } from "./result.js"
import { nextDelay } from "./retry.js"

/** One backend call as a method describes it; the runner adds headers, timeouts, retries and events. */
export interface Operation<A> {
  /** HTTP method, for events. */
  readonly method: string
  /** Route template, for events (`/subjects/:id`). */
  readonly route: string
  /** `required`: key-only method. `verify`: sends the key when the client has one. */
  readonly auth: "required" | "verify" | "none"
  readonly send: (api: SvcApiClient) => Effect.Effect<readonly [unknown, HttpClientResponse.HttpClientResponse], unknown>
  /** Shapes the decoded body into `data`; a string return is why the body is unexpected. */
  readonly toData: (value: unknown, response: HttpClientResponse.HttpClientResponse) => { readonly data: A } | string
}

export interface Runtime {
  readonly options: ResolvedOptions
  readonly api: SvcApiClient
  /** Runs attempts; tracing is off in it, which spares a span per request. */
  readonly effect: EffectRuntime.Runtime<never>
}

export const failure = <C extends SvcErrorCode>(error: SvcError<C>) => ({ ok: false, error }) as const

export const invalidInput = (issues: ReadonlyArray<SvcIssue>) =>
  failure(new SvcError({ code: "INVALID_INPUT", message: `Invalid input: ${issues.map(formatIssue).join("; ")}`, issues }))

export const missingApiKey = (name: string) =>
  failure(new SvcError({
    code: "MISSING_API_KEY",
    message: `${name} needs an API key; create the client with the apiKey option (server side only)`
  }))

const plainHeaders = (response: HttpClientResponse.HttpClientResponse): Record<string, string> => ({ ...response.headers })

type Outcome<A> = SvcSuccess<A> | SvcError
interface Attempted<A> {
  readonly outcome: Outcome<A> | "aborted"
  readonly response: HttpClientResponse.HttpClientResponse | undefined
}

/** One attempt as an effect that never fails: a success, or the `SvcError` it ended with. */
const attemptEffect = <A>(
  runtime: Runtime,
  operation: Operation<A>,
  requestId: string,
  state: CallState,
  documented: ReadonlySet<string> = documentedCodes(operation.method, operation.route)
): Effect.Effect<Outcome<A>> =>
  operation.send(runtime.api).pipe(
    Effect.provideService(CurrentCall, state),
    Effect.matchEffect({
      onSuccess: ([value, response]): Effect.Effect<Outcome<A>> => {
        const shaped = operation.toData(value, response)
        if (typeof shaped !== "string") {
          return Effect.succeed({
            ok: true,
            data: shaped.data,
            status: response.status,
            requestId,
            headers: plainHeaders(response)
          })
        }
        return Effect.succeed(makeError({
          code: "UNEXPECTED_RESPONSE",
          message: `Unexpected response: HTTP ${response.status}, body ${shaped}`,
          status: response.status,
          requestId
        }))
      },
      onFailure: (error) => classifyFailure(error, { requestId, response: state.response, documented })
    }),
    Effect.catchAllDefect((defect) => {
      const { response } = state
      if (response !== undefined) return unexpectedResponse({ requestId, response, documented }, "could not be decoded")
      return Effect.succeed(makeError({
        code: "NETWORK_ERROR",
        message: `The request failed unexpectedly: ${defect instanceof Error ? defect.message : String(defect)}`,
        requestId,
        cause: defect
      }))
    })
  )

/*
 * The retry loop, the per-attempt deadline and the caller's signal live in plain promise code:
 * each attempt is one Effect fiber, interrupted on timeout or abort (which aborts its fetch,
 * body included). Racing fibers inside Effect for this cost more than the request itself.
 */
const attempt = <A>(
  runtime: Runtime,
  operation: Operation<A>,
  call: ResolvedCall,
  number: number
): Promise<Attempted<A>> =>
  new Promise((resolve) => {
    const { requestId, signal } = call
    const { apiKey, onEvent } = runtime.options
    const state: CallState = {
      headers: {
        under: call.headers,
        over: {
          ...versionHeaders,
          "x-request-id": requestId,
          ...(apiKey !== undefined && operation.auth !== "none" ? { authorization: `Bearer ${apiKey}` } : {})
        }
      },
      response: undefined
    }
    const base = { method: operation.method, path: operation.route, requestId, attempt: number }
    if (onEvent !== undefined) emit(onEvent, { type: "request", ...base })
    const started = performance.now()
    let ended: "timeout" | "aborted" | undefined
    const fiber = EffectRuntime.runFork(runtime.effect)(attemptEffect(runtime, operation, requestId, state))
    const stop = (why: "timeout" | "aborted") => () => {
      ended ??= why
      fiber.unsafeInterruptAsFork(FiberId.none)
    }
    const onAbort = stop("aborted")
    const timer = setTimeout(stop("timeout"), call.timeoutMs)
    signal?.addEventListener("abort", onAbort, { once: true })
    // The signal may have fired during the request event's handler.
    if (signal?.aborted === true) onAbort()
    fiber.addObserver((exit) => {
      clearTimeout(timer)
      signal?.removeEventListener("abort", onAbort)
      const { response } = state
      if (onEvent !== undefined && response !== undefined) {
        emit(onEvent, {
          type: "response",
          ...base,
          status: response.status,
          durationMs: Math.round((performance.now() - started) * 1000) / 1000
        })
      }
      const outcome: Outcome<A> | "aborted" = Exit.isSuccess(exit)
        ? exit.value
        : ended === "aborted"
        ? "aborted"
        : ended === "timeout"
        ? makeError({
          code: "TIMEOUT",
          message: `The attempt took longer than ${call.timeoutMs} ms` +
            (response === undefined ? "" : " (while reading the response body)"),
          status: response?.status,
          requestId
        })
        : makeError({ code: "NETWORK_ERROR", message: "The request was interrupted", requestId })
      resolve({ outcome, response })
    })
  })

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
export const run = async <A, C extends SvcErrorCode>(
  runtime: Runtime,
  operation: Operation<A>,
  call: ResolvedCall
): Promise<SvcResult<A, C>> => {
  const { signal, requestId } = call
  try {
    if (signal?.aborted === true) return failure(abortedError(signal, undefined)) as SvcResult<A, C>
    for (let number = 0;; number++) {
      const { outcome, response } = await attempt(runtime, operation, call, number)
      if (outcome === "aborted") return failure(abortedError(signal!, requestId)) as SvcResult<A, C>
      if (!(outcome instanceof SvcError)) return outcome as SvcResult<A, C>
      const delayMs = nextDelay(outcome, response?.headers["retry-after"], number, call.retry)
      if (delayMs === undefined) return failure(outcome) as SvcResult<A, C>
      emit(runtime.options.onEvent, {
        type: "retry",
        path: operation.route,
        attempt: number + 1,
        delayMs,
        error: outcome,
        requestId
      })
      if (await wait(delayMs, signal)) return failure(abortedError(signal!, requestId)) as SvcResult<A, C>
    }
  } catch (cause) {
    // Only a bug can land here; a method still resolves to a result.
    return failure(makeError({ code: "NETWORK_ERROR", message: "The call failed unexpectedly", requestId, cause })) as SvcResult<
      A,
      C
    >
  }
}
