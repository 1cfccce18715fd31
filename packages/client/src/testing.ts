import { ErrorStatus } from "@svc/schema"
import type { SvcClient } from "./client.js"
import { type StalePolicyReason, SvcError, type SvcErrorCode, type SvcIssue } from "./errors.js"
import type { SvcFailure, SvcSuccess } from "./result.js"
import { isTransient } from "./retry.js"

/*
 * `@svc/client/testing`: a client whose methods call your handlers, and builders for results.
 * Use it in your own tests instead of a server.
 */

type AnyFunction = (...args: never) => unknown
type Handler<F> = F extends (...args: infer A) => Promise<infer R> ? (...args: A) => R | Promise<R>
  : F extends (...args: infer A) => AsyncIterable<infer R> ? (...args: A) => AsyncIterable<R> | Iterable<R>
  : never

/** Handlers by method, in the client's shape; any subset. */
export type SvcMockHandlers = {
  readonly [K in keyof SvcClient]?: SvcClient[K] extends AnyFunction ? Handler<SvcClient[K]>
    : { readonly [M in keyof SvcClient[K]]?: Handler<SvcClient[K][M]> }
}

/**
 * A full client (every method, key-only ones included) whose methods call the given handlers.
 * A method without a handler rejects with an error naming it, so a test notices an unexpected call.
 */
export const createMockSvcClient = (handlers: SvcMockHandlers = {}): SvcClient => {
  const method = (name: string, handler: unknown) => (...args: Array<unknown>) =>
    typeof handler === "function"
      ? Promise.resolve().then(() => handler(...args))
      : Promise.reject(new Error(`createMockSvcClient: no handler for ${name}`))
  const table = handlers as Record<string, unknown>
  // A streaming method returns an async iterable: the handler's items (sync or async); without a
  // handler, iterating rejects with an error naming the method.
  const iterableMethod = (name: string, handler: unknown) => (...args: Array<unknown>): AsyncIterable<unknown> => ({
    async *[Symbol.asyncIterator]() {
      if (typeof handler !== "function") throw new Error(`createMockSvcClient: no handler for ${name}`)
      yield* handler(...args) as AsyncIterable<unknown>
    }
  })
  const group = (name: string, methods: ReadonlyArray<string>) => {
    const given = table[name] as Record<string, unknown> | undefined
    return Object.fromEntries(methods.map((m) => [m, method(`${name}.${m}`, given?.[m])]))
  }
  return {
    status: method("status", table["status"]),
    init: method("init", table["init"]),
    manifest: method("manifest", table["manifest"]),
    consents: {
      ...group("consents", ["check"]),
      export: iterableMethod("consents.export", (table["consents"] as Record<string, unknown> | undefined)?.["export"])
    },
    subjects: group("subjects", ["identify", "get", "create", "list", "export", "erase"]),
    legalDocuments: group("legalDocuments", ["publish", "current", "list"]),
    experiments: group("experiments", ["summary"]),
    events: group("events", ["listDeliveries", "retryDelivery"])
  } as unknown as SvcClient
}

export interface OkOptions {
  readonly status?: number | undefined
  readonly requestId?: string | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** A success result; `status` 200, `requestId` `"mock-request"`, no headers unless given. */
export const ok = <const T>(data: T, options: OkOptions = {}): SvcSuccess<T> => ({
  ok: true,
  data,
  status: options.status ?? 200,
  requestId: options.requestId ?? "mock-request",
  headers: options.headers ?? {}
})

export interface ErrOptions {
  readonly message?: string | undefined
  /** Default: the backend's status for a backend code, none for a client code. */
  readonly status?: number | undefined
  readonly reason?: StalePolicyReason | undefined
  /** Default: what the client would report for this code and status. */
  readonly retryable?: boolean | undefined
  readonly issues?: ReadonlyArray<SvcIssue> | undefined
  readonly requestId?: string | undefined
  readonly serverCode?: string | undefined
}

/** A failure result with an `SvcError` of `code`. */
export const err = <const C extends SvcErrorCode>(code: C, options: ErrOptions = {}): SvcFailure<C> => {
  const status = options.status ?? (ErrorStatus as Readonly<Record<string, number>>)[code]
  return {
    ok: false,
    error: new SvcError({
      code,
      message: options.message ?? `Mock ${code} error`,
      status,
      retryable: options.retryable ?? isTransient(code, status),
      requestId: options.requestId,
      issues: options.issues,
      reason: options.reason,
      serverCode: options.serverCode
    })
  }
}
