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
  const method = <A extends ReadonlyArray<unknown>, R>(
    name: string,
    handler: ((...args: A) => R | Promise<R>) | undefined
  ) =>
  (...args: A): Promise<R> =>
    typeof handler === "function"
      ? Promise.resolve().then(() => handler(...args))
      : Promise.reject(new Error(`createMockSvcClient: no handler for ${name}`))
  // A streaming method returns an async iterable: the handler's items (sync or async); without a
  // handler, iterating rejects with an error naming the method.
  const iterableMethod = <A extends ReadonlyArray<unknown>, R>(
    name: string,
    handler: ((...args: A) => AsyncIterable<R> | Iterable<R>) | undefined
  ) =>
  (...args: A): AsyncIterable<R> => ({
    async *[Symbol.asyncIterator]() {
      if (typeof handler !== "function") throw new Error(`createMockSvcClient: no handler for ${name}`)
      yield* handler(...args)
    }
  })
  const { consents, events, experiments, legalDocuments, log, subjects } = handlers
  return {
    status: method("status", handlers.status),
    ready: method("ready", handlers.ready),
    init: method("init", handlers.init),
    manifest: method("manifest", handlers.manifest),
    consents: {
      check: method("consents.check", consents?.check),
      export: iterableMethod("consents.export", consents?.export)
    },
    subjects: {
      identify: method("subjects.identify", subjects?.identify),
      get: method("subjects.get", subjects?.get),
      create: method("subjects.create", subjects?.create),
      list: method("subjects.list", subjects?.list),
      export: method("subjects.export", subjects?.export),
      erase: method("subjects.erase", subjects?.erase)
    },
    legalDocuments: {
      publish: method("legalDocuments.publish", legalDocuments?.publish),
      current: method("legalDocuments.current", legalDocuments?.current),
      list: method("legalDocuments.list", legalDocuments?.list)
    },
    experiments: { summary: method("experiments.summary", experiments?.summary) },
    events: {
      listDeliveries: method("events.listDeliveries", events?.listDeliveries),
      retryDelivery: method("events.retryDelivery", events?.retryDelivery)
    },
    log: {
      checkpoint: method("log.checkpoint", log?.checkpoint),
      key: method("log.key", log?.key),
      consistency: method("log.consistency", log?.consistency),
      proof: method("log.proof", log?.proof)
    }
  }
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
