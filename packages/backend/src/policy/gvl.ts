import { Gvl } from "@svc/schema"
import { Context, Data, Duration, Effect, Layer, ParseResult, Schema } from "effect"
import { readFile } from "node:fs/promises"
import { SvcConfig } from "../config/resolved.js"

export class GvlLoadError extends Data.TaggedError("GvlLoadError")<{ readonly message: string }> {}

/**
 * Where the Global Vendor List comes from: a file or an HTTP endpoint. Yields the raw JSON.
 *
 * @example
 * ```ts
 * import { GvlSource, gvlUrlSource } from "@svc/backend"
 * import { Gvl } from "@svc/schema"
 * import { Effect, Schema } from "effect"
 *
 * // Whatever the source, its JSON decodes with the `Gvl` schema.
 * const vendorCount = Effect.flatMap(GvlSource, (source) => source.fetch).pipe(
 *   Effect.flatMap(Schema.decodeUnknown(Gvl)),
 *   Effect.map((gvl) => Object.keys(gvl.vendors).length)
 * )
 * const iab = gvlUrlSource("https://vendor-list.consensu.org/v3/vendor-list.json", 10_000)
 * const live = vendorCount.pipe(Effect.provide(iab))
 * ```
 */
export class GvlSource extends Context.Tag("@svc/backend/GvlSource")<GvlSource, {
  /** For logs: the file path, or the URL without its query string. */
  readonly describe: string
  readonly fetch: Effect.Effect<unknown, GvlLoadError>
}>() {}

const messageOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/**
 * A `GvlSource` that reads the Global Vendor List from a JSON file (the `gvl.file` option).
 *
 * @example
 * ```ts
 * import { GvlSource, gvlFileSource } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // CI checks the vendor list committed with the site before it is deployed.
 * const readable = Effect.flatMap(GvlSource, (source) => source.fetch).pipe(
 *   Effect.provide(gvlFileSource("./config/vendor-list.json")),
 *   Effect.as(true),
 *   Effect.catchTag("GvlLoadError", (error) => Effect.as(Effect.logError(error.message), false))
 * )
 * ```
 */
export const gvlFileSource = (path: string) =>
  Layer.succeed(GvlSource, {
    describe: path,
    fetch: Effect.tryPromise({
      try: async (): Promise<unknown> => JSON.parse(await readFile(path, "utf8")),
      catch: (error) => new GvlLoadError({ message: `cannot read ${path}: ${messageOf(error)}` })
    })
  })

/**
 * A `GvlSource` that fetches the Global Vendor List from an HTTP endpoint within `timeoutMs` (the
 * `gvl.endpoint` option).
 *
 * @example
 * ```ts
 * import { GvlSource, gvlUrlSource } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A deploy check: does the IAB endpoint answer within 5 s from this network?
 * const reachable = Effect.flatMap(GvlSource, (source) => source.fetch).pipe(
 *   Effect.provide(gvlUrlSource("https://vendor-list.consensu.org/v3/vendor-list.json", 5_000)),
 *   Effect.match({ onFailure: (error) => error.message, onSuccess: () => "ok" })
 * )
 * ```
 */
export const gvlUrlSource = (url: string, timeoutMs: number) => {
  const describe = url.replace(/[?#].*$/, "")
  return Layer.succeed(GvlSource, {
    describe,
    fetch: Effect.tryPromise({
      try: async (signal): Promise<unknown> => {
        const response = await fetch(url, {
          headers: { accept: "application/json" },
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
        })
        if (!response.ok) throw new Error(`HTTP ${response.status}`)
        return await response.json()
      },
      catch: (error) => new GvlLoadError({ message: `cannot fetch ${describe}: ${messageOf(error)}` })
    })
  })
}

/** The configured source (the `gvl` option), or none when the option is absent or disabled. */
export const GvlSourceLive = Layer.unwrapEffect(Effect.map(SvcConfig, (config) => {
  const source = config.gvl?.source
  if (source === undefined) return Layer.empty
  return source._tag === "File" ? gvlFileSource(source.path) : gvlUrlSource(source.url, config.gvl!.timeoutMs)
}))

const decodeGvl = Schema.decodeUnknown(Gvl)

interface Loaded {
  readonly gvl: Gvl
  /** Encoded lists by requested-vendor key, filled on first use. */
  readonly encoded: Map<string, string>
}

/** IDs a request names in `x-svc-vendors`, sorted and deduplicated; `undefined` when none are usable. */
export const parseVendorHeader = (header: string | undefined): ReadonlyArray<number> | undefined => {
  if (header === undefined) return undefined
  const ids = new Set<number>()
  for (const part of header.split(",", 2000)) {
    const id = Number(part.trim())
    if (Number.isSafeInteger(id) && id > 0) ids.add(id)
  }
  return ids.size === 0 ? undefined : [...ids].sort((a, b) => a - b)
}

/**
 * The server-side Global Vendor List: loaded when the instance starts (bounded by `timeoutMs`),
 * refreshed every `refreshIntervalSeconds`, and kept at the last good copy when the source fails
 * or sends something that is not a vendor list. Until a first copy loads, retries come sooner.
 *
 * @example
 * ```ts
 * import { resolveOptions, SvcConfig, VendorList } from "@svc/backend"
 * import { Effect, Layer } from "effect"
 *
 * // The vendor list version /init serves now (undefined until a first copy has loaded).
 * const config = resolveOptions({
 *   database: { dialect: "sqlite", url: ":memory:" },
 *   gvl: { file: "./gvl/vendor-list.json" }
 * })
 * const version = Effect.map(VendorList, (list) => list.current()?.vendorListVersion).pipe(
 *   Effect.provide(VendorList.Default),
 *   Effect.provide(Layer.succeed(SvcConfig, config))
 * )
 * ```
 */
export class VendorList extends Effect.Service<VendorList>()("@svc/backend/VendorList", {
  scoped: Effect.gen(function*() {
    const config = yield* SvcConfig
    const settings = config.gvl
    const source = yield* Effect.serviceOption(GvlSource)
    let current: Loaded | undefined
    const allowed = settings?.vendorIds === undefined ? undefined : new Set(settings.vendorIds)

    if (settings !== undefined && source._tag === "Some") {
      const load = source.value.fetch.pipe(
        Effect.flatMap((raw) =>
          decodeGvl(raw).pipe(
            Effect.mapError((error) =>
              new GvlLoadError({
                message: `not a vendor list: ${ParseResult.TreeFormatter.formatErrorSync(error).slice(0, 300)}`
              })
            )
          )
        ),
        Effect.tap((gvl) => {
          current = { gvl, encoded: new Map() }
          return Effect.logDebug("vendor list loaded").pipe(
            Effect.annotateLogs({ source: source.value.describe, vendorListVersion: gvl.vendorListVersion })
          )
        }),
        Effect.catchAll((error) =>
          Effect.logWarning(
            current === undefined ? "vendor list unavailable" : "vendor list refresh failed; keeping the last good copy"
          )
            .pipe(Effect.annotateLogs({ source: source.value.describe, error: error.message }))
        )
      )
      yield* load
      const interval = settings.refreshIntervalSeconds
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.suspend(() =>
            Effect.sleep(Duration.seconds(current === undefined ? Math.min(interval, 30) : interval))
          ).pipe(
            Effect.zipRight(load)
          )
        )
      )
    }

    /** The list as `/init` sends it: `gvl.vendorIds` ∩ the request's vendors; never wider than either. */
    const encodedFor = (requested: ReadonlyArray<number> | undefined): string | undefined => {
      const loaded = current
      if (loaded === undefined) return undefined
      const key = requested === undefined ? "*" : requested.join(",")
      let json = loaded.encoded.get(key)
      if (json === undefined) {
        const wanted = requested === undefined ? undefined : new Set(requested)
        const vendors: Record<string, unknown> = {}
        for (const [id, vendor] of Object.entries(loaded.gvl.vendors)) {
          if (allowed !== undefined && !allowed.has(vendor.id)) continue
          if (wanted !== undefined && !wanted.has(vendor.id)) continue
          vendors[id] = vendor
        }
        json = JSON.stringify({ ...loaded.gvl, vendors })
        if (loaded.encoded.size >= 256) loaded.encoded.clear()
        loaded.encoded.set(key, json)
      }
      return json
    }

    return {
      enabled: settings !== undefined,
      current: (): Gvl | undefined => current?.gvl,
      encodedFor
    } as const
  }),
  dependencies: [GvlSourceLive]
}) {}
