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
  /**
   * Start even when no host matches, and keep looking (`database.readUrl`): until one does, every
   * connection fails at once, so a query fails (503) instead of the pool, or svc, never starting.
   */
  readonly startWithoutServer?: boolean | undefined
  /** Names the pool in its log lines (`PostgreSQL (read): …`). */
  readonly label?: string | undefined
}

/** Everything but the pool's size, which is `database.maxConnections` (client.ts). */
export const defaultPgPoolOptions: Omit<PgPoolOptions, "maxConnections"> = {
  connectTimeout: Duration.seconds(5),
  checkInterval: Duration.seconds(1),
  searchInterval: Duration.millis(200)
}

const sqlError = (message: string, cause?: unknown) => new SqlError({ message, cause })
const errorText = (error: unknown) => error instanceof Error ? error.message : String(error)

/**
 * What the watcher saw of the current server: the kind wanted; reachable but the wrong kind; a
 * prefer-standby pool on its fallback (not a standby); gone (or none found yet).
 */
type Look = { readonly _tag: "Healthy" | "Wrong" | "Fallback" | "Lost" }

/** Whether the URL leaves svc a choice between servers, which a watcher then keeps right. */
const needsWatcher = (target: PgTarget) => target.endpoints.length > 1 || target.targetSessionAttrs !== "any"

const makePool = (target: PgTarget, options: PgPoolOptions) =>
  Effect.gen(function*() {
    const timeoutMs = Duration.toMillis(options.connectTimeout)
    const name = options.label === undefined ? "PostgreSQL" : `PostgreSQL (${options.label})`
    const first = yield* Effect.promise(() => findServer(target, timeoutMs))
    if (first._tag === "NotFound" && options.startWithoutServer !== true) {
      return yield* Effect.fail(sqlError("PgClient: Failed to connect", first.error))
    }

    /** The server new connections go to; `undefined` while none has been found (`startWithoutServer`). */
    let current: Server | undefined = first._tag === "Found" ? first.server : undefined
    /** Why there is none, for the connections that fail meanwhile. */
    let notFound = first._tag === "NotFound" ? errorText(first.error) : ""
    let generation = 0
    const generations = new WeakMap<object, number>()
    const live = new Set<pg.PoolClient>()
    const wake = yield* Queue.sliding<void>(1)
    if (current === undefined) yield* Effect.logWarning(`${name}: ${notFound}; looking again in the background`)

    /** Each connection the pool opens goes to the server found last; with none found yet it fails at once. */
    class SelectedServerClient extends pg.Client {
      readonly #server: Server | undefined
      constructor(poolOptions?: pg.PoolConfig) {
        super({ ...poolOptions, ...(current === undefined ? {} : connectionConfig(target, current)) })
        this.#server = current
        generations.set(this, generation)
      }
      override connect(): Promise<pg.Client>
      override connect(callback: (err: Error) => void): void
      override connect(callback?: (err: Error) => void): Promise<pg.Client> | void {
        if (this.#server === undefined) {
          const error = new Error(`no server to connect to (${notFound})`)
          Queue.unsafeOffer(wake, undefined)
          if (callback === undefined) return Promise.reject(error)
          process.nextTick(() => callback(error))
          return
        }
        return callback === undefined ? super.connect() : super.connect(callback)
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
    const stale = (client: pg.PoolClient) => (generations.get(client) ?? 0) < generation
    pool.on("connect", (client) => live.add(client))
    pool.on("remove", (client) => live.delete(client))
    // A connection to a server given up gently (see `switchTo`) ends when its use is done; ending it
    // here, before the pool looks, makes the pool drop it instead of keeping it idle.
    pool.on("release", (_error, client) => {
      if (stale(client)) client.end().catch(() => undefined)
    })
    // An idle connection that died (its server stopped): the pool drops it; the watcher looks now.
    pool.on("error", () => Queue.unsafeOffer(wake, undefined))

    /**
     * New connections go to `server`. Those to the old one end now, failing the statements in
     * flight there (an uncommitted save answers 503 and is retried), or, `gently` (the old one is
     * still a right server, only not the preferred one: prefer-standby's fallback), each when its
     * next use is done (or the pool's idle timeout ends it first): no statement fails.
     */
    const switchTo = (server: Server, gently = false) =>
      Effect.gen(function*() {
        const from = current === undefined ? "none" : describeServer(current)
        current = server
        generation += 1
        const ending = gently ? [] : [...live].filter(stale)
        for (const client of ending) client.end().catch(() => undefined)
        yield* Effect.logWarning(`${name}: now using ${describeServer(server)} (was ${from})`).pipe(
          Effect.annotateLogs({ closedConnections: ending.length })
        )
      })

    const dropWatch = (watch: { client: pg.Client | undefined }) =>
      Effect.promise(async () => {
        const client = watch.client
        watch.client = undefined
        await client?.end().catch(() => undefined)
      })

    /** The last search's failure, logged once until it changes or a server is found. */
    let lastLogged: string | undefined = current === undefined ? notFound : undefined

    /** One look at the current server on the watcher's own connection; the hosts again if it is not right. */
    const check = (watch: { client: pg.Client | undefined }) =>
      Effect.promise(async (): Promise<Look> => {
        const server = current
        if (server === undefined) return { _tag: "Lost" }
        try {
          watch.client ??= await (async () => {
            const client = new pg.Client({ ...connectionConfig(target, server), connectionTimeoutMillis: timeoutMs })
            client.on("error", () => undefined)
            await client.connect()
            return client
          })()
          const state = await readSessionState(watch.client)
          // prefer-standby on its fallback (no standby when last looked) looks for one again each time.
          if (target.targetSessionAttrs === "prefer-standby") return { _tag: state.standby ? "Healthy" : "Fallback" }
          return { _tag: accepts(target.targetSessionAttrs, state) ? "Healthy" : "Wrong" }
        } catch {
          return { _tag: "Lost" }
        }
      }).pipe(
        Effect.flatMap((look) => {
          if (look._tag === "Healthy") return Effect.succeed(true)
          // The watch connection stays while prefer-standby's fallback may stay the server.
          return (look._tag === "Fallback" ? Effect.void : dropWatch(watch)).pipe(
            Effect.zipRight(Effect.promise(() => findServer(target, timeoutMs))),
            Effect.flatMap((found) => {
              if (found._tag === "NotFound") {
                notFound = errorText(found.error)
                if (notFound === lastLogged) return Effect.succeed(false)
                lastLogged = notFound
                return Effect.logWarning(`${name}: ${notFound}`).pipe(Effect.as(false))
              }
              lastLogged = undefined
              // The same server answering again after its watch connection dropped keeps the pool, as
              // does prefer-standby's fallback when there is still no standby.
              const same = current !== undefined && describeServer(found.server) === describeServer(current) &&
                look._tag !== "Wrong"
              if (same) return Effect.succeed(true)
              return (look._tag === "Fallback" ? dropWatch(watch) : Effect.void).pipe(
                Effect.zipRight(switchTo(found.server, look._tag === "Fallback")),
                Effect.as(true)
              )
            })
          )
        })
      )

    if (needsWatcher(target) || current === undefined) {
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
export const pgClientLayer = (target: PgTarget, options: PgPoolOptions) =>
  PgClient.layerFromPool({
    acquire: Effect.acquireRelease(
      makePool(target, options),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption(1000))
    ),
    transformJson: false
  })
