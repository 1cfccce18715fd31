import type { Effect } from "effect"
import { resolveCall } from "../call-options.js"
import { guarded } from "../checks.js"
import type { BackendCodeOf, ClientErrorCode, SvcErrorCode, SvcIssue } from "../errors.js"
import type { SvcResult } from "../result.js"
import type { Plain } from "../plain.js"
import { firstPerPath } from "../validate.js"
import { invalidInput, missingApiKey, type Operation, run, type Runtime } from "../runner.js"

/** Backend codes of a derived-client method, plus the client's own (without `MISSING_API_KEY`). */
export type CodesOf<F> =
  | BackendCodeOf<F extends (...args: never) => Effect.Effect<unknown, infer E, unknown> ? E : never>
  | Exclude<ClientErrorCode, "MISSING_API_KEY">

/** The same for a key-only method. */
export type KeyCodesOf<F> = CodesOf<F> | "MISSING_API_KEY"

/** The decoded success body of a derived-client method (its `withResponse` tuple form removed). */
export type SuccessOf<F> = F extends (...args: never) => Effect.Effect<infer A, unknown, unknown>
  ? Plain<Exclude<A, readonly [unknown, unknown]>>
  : never

export interface MethodSpec {
  /** `subjects.get`, for messages. */
  readonly name: string
  readonly needsKey: boolean
}

const isIssues = <A>(prepared: Operation<A> | ReadonlyArray<SvcIssue>): prepared is ReadonlyArray<SvcIssue> =>
  Array.isArray(prepared)

/**
 * A method's result with the codes the method declares (`C`). The runner's results carry the
 * client's own codes and the backend codes the endpoint documents (an undocumented one becomes
 * `UNEXPECTED_RESPONSE`), which is what each method's `C` lists.
 */
const withCodes = <A, C extends SvcErrorCode>(result: SvcResult<A>): SvcResult<A, C> =>
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the one place a method's result gets its code list: the runner keeps to the documented codes (documented.ts), which the type system cannot follow through HttpApi.reflect
  result as SvcResult<A, C>

/**
 * One call of a method: `options` is the method's last argument, `prepare` checks the others and
 * describes the call (or returns the problems). Checks run in this order and send nothing when
 * they fail: API key, call options, arguments.
 */
export const callMethod = <A, C extends SvcErrorCode>(
  runtime: Runtime,
  spec: MethodSpec,
  options: unknown,
  prepare: () => Operation<A> | ReadonlyArray<SvcIssue>
): Promise<SvcResult<A, C>> => {
  if (spec.needsKey && runtime.options.apiKey === undefined) {
    return Promise.resolve(withCodes<A, C>(missingApiKey(spec.name)))
  }
  // Options and inputs with throwing getters or proxies: still a result, never a throw or rejection.
  const resolved = guarded(["options"], () => resolveCall(options, runtime.options), (issue) => ({
    issues: [issue]
  }))
  if ("issues" in resolved) return Promise.resolve(withCodes<A, C>(invalidInput(resolved.issues)))
  const prepared = guarded<Operation<A> | ReadonlyArray<SvcIssue>>([], prepare, (issue) => [issue])
  if (isIssues(prepared)) return Promise.resolve(withCodes<A, C>(invalidInput(firstPerPath(prepared))))
  return run(runtime, prepared, resolved.call).then(withCodes<A, C>)
}
