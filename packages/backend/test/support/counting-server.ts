import { HttpLayerRouter, type HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Statement } from "@effect/sql"
import { svcInstance } from "@svc/backend"
import { Effect, HashMap, Layer, Logger, ManagedRuntime } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll } from "vitest"
import { type FreshDatabase, freshDatabase } from "./dialects.js"
import type { TestOptions, TestServer } from "./server.js"
import type { SqlDialect } from "@svc/backend"

export interface CountingServer extends TestServer {
  /** SQL statements the server has executed so far. */
  readonly statements: () => number
  /** Annotations of every per-request log event so far (set `observability.requests` to log them). */
  readonly requestEvents: () => ReadonlyArray<Record<string, unknown>>
}

/**
 * Like `useServer`, but every SQL statement the server runs passes through a counting
 * `@effect/sql` statement transformer, so a test can assert how many statements a request costs.
 */
export const useCountingServer = (dialect: SqlDialect, options: TestOptions = {}): CountingServer => {
  let count = 0
  const events: Array<Record<string, unknown>> = []
  const capture = Logger.make(({ annotations, message }) => {
    const text = Array.isArray(message) ? message.join(" ") : String(message)
    if (text === "request") events.push(Object.fromEntries(HashMap.toEntries(annotations)))
  })
  let db: FreshDatabase | undefined
  let url = ""
  let close: (() => Promise<void>) | undefined
  beforeAll(async () => {
    db = await freshDatabase(dialect)
    const instance = svcInstance({
      ...options,
      database: db.database,
      observability: { requests: "none", ...options.observability }
    }, { migrate: true })
    const server = createServer()
    const app =
      (HttpLayerRouter.serve(instance.standaloneLayer, { disableLogger: true, disableListenLog: true }) as Layer.Layer<
        never,
        unknown,
        HttpServer.HttpServer
      >).pipe(
        Layer.provide(NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" })),
        Layer.provide(Statement.setTransformer((statement) => Effect.sync(() => (count++, statement)))),
        Layer.provide(Logger.replace(Logger.defaultLogger, capture))
      )
    const runtime = ManagedRuntime.make(app)
    await runtime.runtime()
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    close = async () => {
      server.closeAllConnections()
      await runtime.dispose()
      await instance.dispose()
    }
  })
  afterAll(async () => {
    await close?.()
    await db?.drop()
  })
  return {
    url: () => url,
    db: () => db!,
    client: Effect.dieMessage("not available on the counting server"),
    clientWithKey: () => Effect.dieMessage("not available on the counting server"),
    fetch: (path, init) => fetch(url + path, init),
    statements: () => count,
    requestEvents: () => events
  }
}
