import { type ErrorCode, ErrorStatus } from "@svc/schema"
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

/**
 * Handlers by method, in the client's shape; any subset.
 *
 * @example
 * ```ts
 * import { createMockSvcClient, err, ok, type SvcMockHandlers } from "@svc/client/testing"
 *
 * // Handlers shared by a test file: erasure works, except for one user whose erasure fails.
 * const erasures: SvcMockHandlers = {
 *   subjects: {
 *     erase: (target) =>
 *       typeof target === "object" && target.externalId === "user-locked"
 *         ? err("DATABASE_ERROR")
 *         : ok({ erasedAt: new Date("2026-02-01T10:00:00Z"), subjects: 1, recordsKeptAsAnonymousProof: 3 })
 *   }
 * }
 * const svc = createMockSvcClient(erasures)
 * ```
 */
export type SvcMockHandlers = {
  readonly [K in keyof SvcClient]?: SvcClient[K] extends AnyFunction ? Handler<SvcClient[K]>
    : { readonly [M in keyof SvcClient[K]]?: Handler<SvcClient[K][M]> }
}

/**
 * A full client (every method, key-only ones included) whose methods call the given handlers.
 * A method without a handler rejects with an error naming it, so a test notices an unexpected call.
 *
 * @example
 * ```ts
 * import { type SvcClient, unwrap } from "@svc/client"
 * import { createMockSvcClient, err } from "@svc/client/testing"
 * import { expect, it } from "vitest"
 *
 * const publish = (svc: SvcClient, version: string) =>
 *   unwrap(
 *     svc.legalDocuments.publish("privacy_policy", { version, hash: "sha256-3f1c9a", effectiveDate: "2026-02-01" })
 *   )
 *
 * it("fails the release when the text was published with another date", async () => {
 *   const svc = createMockSvcClient({ legalDocuments: { publish: () => err("CONFLICT") } })
 *   await expect(publish(svc, "2026-02")).rejects.toMatchObject({ code: "CONFLICT" })
 * })
 * ```
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

/**
 * What `ok` puts beside the data: status, request id and response headers.
 *
 * @example
 * ```ts
 * import { ok, type OkOptions } from "@svc/client/testing"
 *
 * // A manifest answer with its ETag, for a test of the host's manifest cache.
 * const withEtag: OkOptions = { headers: { etag: "\"r-2026-02-01\"" }, requestId: "req-manifest-1" }
 * const answer = ok({ status: "not-modified", etag: "\"r-2026-02-01\"" }, withEtag)
 * ```
 */
export interface OkOptions {
  readonly status?: number | undefined
  readonly requestId?: string | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * A success result; `status` 200, `requestId` `"mock-request"`, no headers unless given.
 *
 * @example
 * ```ts
 * import { createMockSvcClient, ok } from "@svc/client/testing"
 *
 * // A check that says yes for the newsletter, for the mailer under test.
 * const svc = createMockSvcClient({
 *   consents: {
 *     check: () => ok({ results: { terms_and_conditions_newsletter: { hasConsent: true, isLatestPolicy: true } } })
 *   }
 * })
 * ```
 */
export const ok = <const T>(data: T, options: OkOptions = {}): SvcSuccess<T> => ({
  ok: true,
  data,
  status: options.status ?? 200,
  requestId: options.requestId ?? "mock-request",
  headers: options.headers ?? {}
})

/**
 * What `err` puts in the `SvcError` beside its code: message, status, STALE_POLICY's reason,
 * `retryable`, validation issues, request id and the backend's own code.
 *
 * @example
 * ```ts
 * import { err, type ErrOptions } from "@svc/client/testing"
 *
 * // A save refused because the rules changed since the banner was shown.
 * const stale: ErrOptions = { reason: "policy-changed", message: "The policy changed since /init" }
 * const refused = err("STALE_POLICY", stale) // status 422, retryable false
 * ```
 */
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

const isBackendCode = (code: string): code is ErrorCode => Object.hasOwn(ErrorStatus, code)

/**
 * A failure result with an `SvcError` of `code`.
 *
 * @example
 * ```ts
 * import { createMockSvcClient, err } from "@svc/client/testing"
 *
 * // svc is unreachable: the code under test must fall back, not crash.
 * const offline = createMockSvcClient({
 *   subjects: { get: () => err("NETWORK_ERROR", { message: "connect ECONNREFUSED 127.0.0.1:3000" }) },
 *   ready: () => err("NOT_READY", { retryable: true })
 * })
 * ```
 */
export const err = <const C extends SvcErrorCode>(code: C, options: ErrOptions = {}): SvcFailure<C> => {
  const status = options.status ?? (isBackendCode(code) ? ErrorStatus[code] : undefined)
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
