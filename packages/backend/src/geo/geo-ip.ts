import { Clock, Duration, Effect, Metric, Runtime, Schedule } from "effect"
import { stat } from "node:fs/promises"
import { SvcConfig } from "../config/resolved.js"
import { builtInPath, type IpLocation, type LoadedDatabase, loadMaxMindFile, openBuiltIn } from "./databases.js"

export type { IpLocation } from "./databases.js"

/** A database older than this is logged as a warning, once a day, until it is replaced. */
export const STALE_AFTER_DAYS = 60
const DAY = 86_400_000

/** What `/status` shows of the database in use; `null` when lookup is off or nothing is loaded. */
export interface GeoDatabaseInfo {
  readonly kind: "built-in" | "file"
  readonly buildDate: Date
}

/** Lookups that could not read the built-in table's file; each answered no location. */
export const geoReadFailures = Metric.counter("svc_geo_read_failures_total", {
  description:
    "IP location lookups that could not read the built-in table's file (I/O errors); each answered no location",
  incremental: true
})

/**
 * What a lookup that cannot read the built-in table's file does besides answering no location (the
 * request goes on, the visitor unlocated): counts it in `svc_geo_read_failures_total`, and logs the
 * first one as an error. A broken file fails every lookup after it: one line says what broke, the
 * counter how often.
 */
export const reportReadFailures: Effect.Effect<(error: unknown) => void> = Effect.map(
  Effect.runtime<never>(),
  (runtime) => {
    const runFork = Runtime.runFork(runtime)
    let logged = false
    return (error) => {
      geoReadFailures.unsafeUpdate(1, [])
      if (logged) return
      logged = true
      runFork(
        Effect.logError(
          "The built-in IP location table could not be read: visitors are not located by IP (svc_geo_read_failures_total counts the lookups); replace the package's geo data and restart"
        ).pipe(Effect.annotateLogs("error", error instanceof Error ? error.message : String(error)))
      )
    }
  }
)

const fileVersion = (path: string) =>
  Effect.map(Effect.tryPromise(() => stat(path)), (s) => `${s.ino}:${s.size}:${s.mtimeMs}`)

/**
 * The client IP's location, for `/init` and the save's stored country when no override or edge
 * header names it: the built-in DB-IP Lite table by default, an operator's MaxMind-format file
 * (`geo.database`, picked up again whenever it changes, as `geoipupdate` replaces it), or nothing
 * (`geo.database: false`). `lookup` is a plain synchronous call: it sits on `/init`'s hot path.
 */
export class GeoIp extends Effect.Service<GeoIp>()("@svc/backend/GeoIp", {
  scoped: Effect.gen(function*() {
    const config = yield* SvcConfig
    const setting = config.geo
    let current: LoadedDatabase | null = null
    const lookup = (ip: string): IpLocation | null => current === null ? null : current.lookup(ip)
    const database = (): GeoDatabaseInfo | null =>
      current === null ? null : { kind: current.kind, buildDate: current.buildDate }

    if (setting._tag === "BuiltIn") {
      // Open for the scope's life: lookups read the table's file (closed when the scope closes).
      const onReadError = yield* reportReadFailures
      current = yield* Effect.acquireRelease(
        Effect.try(() => openBuiltIn(builtInPath(), onReadError)),
        (table) => Effect.sync(() => table.close())
      ).pipe(
        Effect.tapError((error) =>
          Effect.logWarning(
            "The built-in IP location data could not be read (run `npm run build:geo`); /init locates visitors by override and edge headers only"
          ).pipe(Effect.annotateLogs("error", String(error.error)))
        ),
        Effect.orElseSucceed(() => null)
      )
    }

    if (setting._tag === "File") {
      const { checkIntervalSeconds, path } = setting
      let lastWarned = Number.NEGATIVE_INFINITY
      const warnIfStale = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        if (current === null || now - current.buildDate.getTime() <= STALE_AFTER_DAYS * DAY || now - lastWarned < DAY)
          return
        lastWarned = now
        yield* Effect.logWarning(
          `The IP location database (geo.database) was built more than ${STALE_AFTER_DAYS} days ago; is geoipupdate running?`
        ).pipe(Effect.annotateLogs({ path, buildDate: current.buildDate.toISOString() }))
      })
      const load = (version: string) =>
        Effect.tryPromise(() => loadMaxMindFile(path)).pipe(Effect.map((loaded) => ({ loaded, version })))

      // An unreadable file at startup is a configuration error: the operator asked for this file.
      const first = yield* Effect.flatMap(fileVersion(path), load).pipe(
        Effect.mapError((error) =>
          new Error(`geo.database: cannot read a MaxMind-format database at ${path}: ${String(error.error)}`)
        ),
        Effect.orDie
      )
      current = first.loaded
      let version = first.version
      yield* warnIfStale

      // A changed file (new inode, size or mtime) is read whole and replaces the old one only once
      // it reads as a database: a file caught half-written is tried again on the next check.
      const check = Effect.gen(function*() {
        const seen = yield* fileVersion(path)
        if (seen !== version) {
          const next = yield* load(seen)
          current = next.loaded
          version = next.version
          yield* Effect.logInfo("IP location database reloaded").pipe(
            Effect.annotateLogs({ path, buildDate: next.loaded.buildDate.toISOString() })
          )
        }
        yield* warnIfStale
      }).pipe(
        Effect.catchAll((error) =>
          Effect.logWarning("IP location database: the changed file could not be read; keeping the loaded one").pipe(
            Effect.annotateLogs({ path, error: String(error.error) })
          )
        )
      )
      yield* Effect.forkScoped(Effect.repeat(check, Schedule.spaced(Duration.seconds(checkIntervalSeconds))))
    }

    return { lookup, database } as const
  })
}) {}
