import type { HttpClientResponse } from "@effect/platform"
import { Duration, Effect, Option } from "effect"
import type { ResolvedCall } from "./call-options.js"
import { CurrentCall, type CallState, type SvcApiClient, versionHeaders } from "./effect-client.js"
import { SvcError, type SvcErrorCode, type SvcIssue, formatIssue } from "./errors.js"
import { emit } from "./events.js"
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

const attempt = <A>(
  runtime: Runtime,
  operation: Operation<A>,
  call: ResolvedCall,
  number: number
): Effect.Effect<{ readonly outcome: Outcome<A>; readonly response: HttpClientResponse.HttpClientResponse | undefined }> =>
  Effect.suspend(() => {
    const { requestId } = call
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
    emit(onEvent, { type: "request", ...base })
    const started = performance.now()
    return operation.send(runtime.api).pipe(
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
        onFailure: (error) => classifyFailure(error, { requestId, response: state.response })
      }),
      Effect.catchAllDefect((defect) => {
        const { response } = state
        if (response !== undefined) return unexpectedResponse({ requestId, response }, "could not be decoded")
        return Effect.succeed(makeError({
          code: "NETWORK_ERROR",
          message: `The request failed unexpectedly: ${defect instanceof Error ? defect.message : String(defect)}`,
          requestId,
          cause: defect
        }))
      }),
      Effect.timeoutOption(Duration.millis(call.timeoutMs)),
      Effect.map((outcome) => {
        const { response } = state
        if (response !== undefined) {
          emit(onEvent, {
            type: "response",
            ...base,
            status: response.status,
            durationMs: Math.round((performance.now() - started) * 1000) / 1000
          })
        }
        return {
          response,
          outcome: Option.getOrElse(outcome, () =>
            makeError({
              code: "TIMEOUT",
              message: `The attempt took longer than ${call.timeoutMs} ms` +
                (response === undefined ? "" : " (while reading the response body)"),
              status: response?.status,
              requestId
            }))
        }
      })
    )
  })

const attempts = <A>(runtime: Runtime, operation: Operation<A>, call: ResolvedCall): Effect.Effect<SvcResult<A>> =>
  Effect.gen(function*() {
    for (let number = 0;; number++) {
      const { outcome, response } = yield* attempt(runtime, operation, call, number)
      if (!(outcome instanceof SvcError)) return outcome
      const delayMs = nextDelay(outcome, response?.headers["retry-after"], number, call.retry)
      if (delayMs === undefined) return failure(outcome)
      emit(runtime.options.onEvent, {
        type: "retry",
        path: operation.route,
        attempt: number + 1,
        delayMs,
        error: outcome,
        requestId: call.requestId
      })
      if (delayMs > 0) yield* Effect.sleep(Duration.millis(delayMs))
    }
  })

const abortedError = (signal: AbortSignal, requestId: string | undefined) => {
  const reason: unknown = signal.reason
  const name = reason instanceof Error && reason.name !== "AbortError" ? ` (${reason.name})` : ""
  return makeError({ code: "ABORTED", message: `The call was aborted by its signal${name}`, requestId, cause: reason })
}

/** Runs an operation to a result; never rejects. */
export const run = <A, C extends SvcErrorCode>(
  runtime: Runtime,
  operation: Operation<A>,
  call: ResolvedCall
): Promise<SvcResult<A, C>> => {
  const { signal } = call
  if (signal?.aborted === true) return Promise.resolve(failure(abortedError(signal, undefined)) as SvcResult<A, C>)
  let program = attempts(runtime, operation, call)
  if (signal !== undefined) {
    const abort = Effect.async<SvcResult<A>>((resume) => {
      const onAbort = () => resume(Effect.succeed(failure(abortedError(signal, call.requestId))))
      signal.addEventListener("abort", onAbort, { once: true })
      return Effect.sync(() => signal.removeEventListener("abort", onAbort))
    })
    program = Effect.race(program, abort)
  }
  return Effect.runPromise(program).then(
    (result) => result as SvcResult<A, C>,
    (cause: unknown) =>
      failure(makeError({ code: "NETWORK_ERROR", message: "The call failed unexpectedly", requestId: call.requestId, cause })) as SvcResult<A, C>
  )
}
