import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { SvcApi } from "@svc/api"
import type { SqlDialect, SvcOptions } from "@svc/backend"
import { type RunningServer, startServer, type StartOptions } from "@svc/server"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { type FreshDatabase, freshDatabase } from "./dialects.js"

export type SvcTestClient = Effect.Effect.Success<ReturnType<typeof derivedClient>>

export type TestOptions = Omit<SvcOptions, "database">

export interface TestServer {
  /** Base URL of the running server, e.g. `http://127.0.0.1:41234`. */
  readonly url: () => string
  /** The fresh database behind it, for direct assertions on stored rows. */
  readonly db: () => FreshDatabase
  /** The typed client derived from `SvcApi`, pointed at the server. */
  readonly client: Effect.Effect<SvcTestClient>
  /** Same client with `Authorization: Bearer <key>`. */
  readonly clientWithKey: (key: string) => Effect.Effect<SvcTestClient>
  /** Plain `fetch` against the server (path relative to its base URL). */
  readonly fetch: (path: string, init?: RequestInit) => Promise<Response>
}

/** A test server started by `startServer`, as svc serve runs it. */
export interface StartedTestServer extends TestServer {
  /** `GET /init` requests the bundled server's fast path answered (the rest went through the pipeline). */
  readonly initFastPathAnswers: () => number
}

const derivedClient = (baseUrl: string, key?: string) =>
  HttpApiClient.make(SvcApi, {
    baseUrl,
    ...(key === undefined ? {} : { transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(key)) })
  }).pipe(Effect.provide(FetchHttpClient.layer))

/**
 * Starts a real svc server on a fresh database of `dialect` for the enclosing `describe` block
 * (vitest `beforeAll`), migrated, on 127.0.0.1 and a free port; stops it and drops the database after.
 * `options` may be a function, read when the server starts (after the `beforeAll`s declared
 * before it, e.g. a proxy whose address it needs).
 */
export const useServer = (
  dialect: SqlDialect,
  options: TestOptions | (() => TestOptions) = {},
  start: Omit<StartOptions, "port" | "host"> = {}
): StartedTestServer => {
  let running: RunningServer | undefined
  let db: FreshDatabase | undefined
  beforeAll(async () => {
    db = await freshDatabase(dialect)
    const given = typeof options === "function" ? options() : options
    running = await startServer({
      ...given,
      database: db.database,
      observability: { requests: "none", ...given.observability }
    }, { ...start, port: 0, host: "127.0.0.1" })
  })
  afterAll(async () => {
    await running?.close()
    await db?.drop()
  })
  const url = () => {
    if (running === undefined) throw new Error("server not started")
    return running.url
  }
  return {
    url,
    db: () => db!,
    client: Effect.suspend(() => derivedClient(url())),
    clientWithKey: (key) => Effect.suspend(() => derivedClient(url(), key)),
    fetch: (path, init) => fetch(url() + path, init),
    initFastPathAnswers: () => running?.initFastPathAnswers() ?? 0
  }
}
