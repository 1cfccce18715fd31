import { PgClient } from "@effect/sql-pg"
import { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, Queue, Schedule } from "effect"
import pg from "pg"
import type { PgTarget } from "../config/pg-url.js"
import {
  accepts,
  connectionConfig,
  describeServer,
  findServer,
  readSessionState,
  type Server
} from "./pg-session-target.js"

/*
 * The PostgreSQL pool behind svc's SqlClient, for a URL that may name several hosts. Every new
 * connection goes to the server last found for `target_session_attrs` and checks its session before
 * it is used. When the URL leaves a choice (several hosts, or a session kind other than `any`), a
 * watcher checks that server on its own connection: if it is gone or no longer the kind wanted
 * (a primary demoted, set read-only, or killed), the hosts are tried again in order, and once
 * another is found every connection to the old one is ended, so requests in flight there fail (a
 * save is 503, never acknowledged) and the pool's next connections go to the new server.
 */

export interface PgPoolOptions {
  readonly maxConnections: number
  /** Per connection attempt (libpq's `connect_timeout`). */
  readonly connectTimeout: Duration.Duration
  /** How often the watcher checks a healthy server. */
  readonly checkInterval: Duration.Duration
  /** How often it looks again while no host matches (a failover under way). */
  readonly searchInterval: Duration.Duration
}

export const defaultPgPoolOptions: PgPoolOptions = {
  maxConnections: 10,
  connectTimeout: Duration.seconds(5),
  checkInterval: Duration.seconds(1),
  searchInterval: Duration.millis(200)
}

const sqlError = (message: string, cause?: unknown) => new SqlError({ message, cause })

/** Whether the URL leaves svc a choice between servers, which a watcher then keeps right. */
const needsWatcher = (target: PgTarget) => target.endpoints.length > 1 || target.targetSessionAttrs !== "any"

const makePool = (target: PgTarget, options: PgPoolOptions) =>
  Effect.gen(function*() {
    const timeoutMs = Duration.toMillis(options.connectTimeout)
    const first = yield* Effect.promise(() => findServer(target, timeoutMs))
    if (first._tag === "NotFound") {
      return yield* Effect.fail(sqlError("PgClient: Failed to connect", first.error))
    }

    let current: Server = first.server
    let generation = 0
    const generations = new WeakMap<object, number>()
    const live = new Set<pg.PoolClient>()
    const wake = yield* Queue.sliding<void>(1)

    /** Each connection the pool opens goes to the server found last. */
    class SelectedServerClient extends pg.Client {
      constructor(poolOptions?: pg.PoolConfig) {
        super({ ...poolOptions, ...connectionConfig(target, current) })
        generations.set(this, generation)
      }
    }

    const pool = new pg.Pool({
      Client: SelectedServerClient,
      max: options.maxConnections,
      connectionTimeoutMillis: timeoutMs,
      ...(target.client.application_name === undefined ? { application_name: "svc" } : {}),
      // A new connection that finds the wrong kind of server (a failover the watcher has not seen
      // yet) is closed and its request fails: the watcher looks again at once.
      verify: (client, done) => {
        if (target.targetSessionAttrs === "any" || target.targetSessionAttrs === "prefer-standby") return done()
        readSessionState(client).then((state) => {
          if (accepts(target.targetSessionAttrs, state)) return done()
          Queue.unsafeOffer(wake, undefined)
          done(new Error(`the server is no longer ${target.targetSessionAttrs}`))
        }, done)
      }
    })
    pool.on("connect", (client) => live.add(client))
    pool.on("remove", (client) => live.delete(client))
    // An idle connection that died (its server stopped): the pool drops it; the watcher looks now.
    pool.on("error", () => Queue.unsafeOffer(wake, undefined))

    const switchTo = (server: Server) =>
      Effect.gen(function*() {
        const from = describeServer(current)
        current = server
        generation += 1
        const stale = [...live].filter((client) => (generations.get(client) ?? 0) < generation)
        // Ending a connection in use fails its statement: an uncommitted save answers 503 and is retried.
        for (const client of stale) client.end().catch(() => undefined)
        yield* Effect.logWarning(`PostgreSQL: now using ${describeServer(server)} (was ${from})`).pipe(
          Effect.annotateLogs({ closedConnections: stale.length })
        )
      })

    /** One look at the current server on the watcher's own connection; the hosts again if it is not right. */
    const check = (watch: { client: pg.Client | undefined }) =>
      Effect.promise(async () => {
        try {
          watch.client ??= await (async () => {
            const client = new pg.Client({ ...connectionConfig(target, current), connectionTimeoutMillis: timeoutMs })
            client.on("error", () => undefined)
            await client.connect()
            return client
          })()
          const state = await readSessionState(watch.client)
          if (accepts(target.targetSessionAttrs === "prefer-standby" ? "any" : target.targetSessionAttrs, state)) {
            return { healthy: true as const }
          }
          return { healthy: false as const, reachable: true }
        } catch {
          return { healthy: false as const, reachable: false }
        }
      }).pipe(
        Effect.flatMap((look) => {
          if (look.healthy) return Effect.succeed(true)
          const client = watch.client
          watch.client = undefined
          return Effect.promise(async () => {
            await client?.end().catch(() => undefined)
            return findServer(target, timeoutMs)
          }).pipe(Effect.flatMap((found) => {
            if (found._tag === "NotFound") {
              return Effect.logWarning(`PostgreSQL: ${found.error instanceof Error ? found.error.message : ""}`).pipe(
                Effect.as(false)
              )
            }
            // The same server answering again after its watch connection dropped keeps the pool.
            const same = describeServer(found.server) === describeServer(current) && !look.reachable
            return (same ? Effect.void : switchTo(found.server)).pipe(Effect.as(true))
          }))
        })
      )

    if (needsWatcher(target)) {
      const watch: { client: pg.Client | undefined } = { client: undefined }
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => watch.client?.end().catch(() => undefined) ?? Promise.resolve())
      )
      const loop = Effect.iterate(true, {
        while: () => true,
        body: (healthy) =>
          Effect.race(
            Effect.sleep(healthy ? options.checkInterval : options.searchInterval),
            Queue.take(wake)
          ).pipe(Effect.zipRight(check(watch)))
      })
      // The pool is built in acquireRelease's uninterruptible acquire; the watcher must still stop with the scope.
      yield* Effect.forkScoped(Effect.interruptible(loop.pipe(Effect.retry(Schedule.spaced(options.searchInterval)))))
    }
    return pool
  })

/**
 * The `SqlClient` layer for a PostgreSQL URL read by `parsePgUrl`, on node-postgres through
 * `@effect/sql-pg`.
 */
export const pgClientLayer = (target: PgTarget, options: PgPoolOptions = defaultPgPoolOptions) =>
  PgClient.layerFromPool({
    acquire: Effect.acquireRelease(
      makePool(target, options),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption(1000))
    ),
    transformJson: false
  })
