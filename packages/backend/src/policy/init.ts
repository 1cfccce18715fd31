import type { ExperimentArm, Journey, SessionReport } from "@svc/schema"
import { Effect, FiberRef, LogLevel, Option } from "effect"
import { SvcConfig } from "../config/resolved.js"
import type { LocationSource } from "../http/location.js"
import { VendorList } from "./gvl.js"
import { makeLanguageNegotiator } from "./language.js"
import { consentModeForInit } from "./consent-mode.js"
import { PolicyManifest, translationsForRule } from "./manifest.js"
import { type Resolution, PolicyResolver } from "./resolver.js"
import { logReport, SessionReports, type Visitor } from "./sessions.js"
import { PolicySnapshots } from "./snapshots.js"

/**
 * Where the visitor is, as `/init` resolves and echoes it, and where that came from.
 *
 * @example
 * ```ts
 * import type { InitLocation } from "@svc/backend"
 *
 * // The location a Cloudflare worker already knows, in the shape /init resolves from.
 * const fromCloudflare = (headers: Headers): InitLocation => {
 *   const country = headers.get("cf-ipcountry")
 *   return country === null || country === "XX"
 *     ? { country: null, region: null, source: "none" }
 *     : { country, region: headers.get("cf-region-code"), source: "header" }
 * }
 * ```
 */
export interface InitLocation {
  readonly country: string | null
  readonly region: string | null
  readonly source: LocationSource
}

/**
 * What one `GET /init` asks, read from its query and headers once by the HTTP side
 * (`init-request.ts`): the service never sees headers.
 *
 * @example
 * ```ts
 * import type { InitRequest } from "@svc/backend"
 *
 * // A preview for QA: the country and language a tester picks; not a page view, so no session report.
 * const preview = (country: string, language: string): InitRequest => ({
 *   contract: undefined,
 *   location: { country, region: null, source: "override" },
 *   gpc: false,
 *   acceptLanguage: language,
 *   experiment: null,
 *   journey: null,
 *   vendorIds: undefined,
 *   pageView: false,
 *   visitor: { read: () => ({ userAgent: null, ipAddress: null }) }
 * })
 * ```
 */
export interface InitRequest {
  /** The policy contract the caller was built for (`contract`, else `X-SVC-Policy-Contract`). */
  readonly contract: string | undefined
  /** The overrides, else the edge's location headers, else the client IP in the IP database. */
  readonly location: InitLocation
  /** The `gpc` override, else `Sec-GPC: 1`. */
  readonly gpc: boolean
  /** `Accept-Language` as sent: negotiated here, against the manifest's languages. */
  readonly acceptLanguage: string | undefined
  readonly experiment: ExperimentArm | null
  readonly journey: Journey | null
  /** The vendor IDs the page names (`X-SVC-Vendors`), narrowing the GVL answer; `undefined` when none. */
  readonly vendorIds: ReadonlyArray<number> | undefined
  /** HEAD requests, prefetches and prerenders are not page views: they send no session report. */
  readonly pageView: boolean
  /** Who is asking, for the session report: read only when one is built. */
  readonly visitor: LazyVisitor
}

/** The visitor, read from the request on demand. */
export interface LazyVisitor {
  read(): Visitor
}

/**
 * What the handler needs back: the encoded body, plus facts for the request's log event.
 *
 * @example
 * ```ts
 * import type { InitAnswer } from "@svc/backend"
 *
 * // A response of the app's own: the body is encoded already; the resolution says which rule answered.
 * const toResponse = (answer: InitAnswer) =>
 *   new Response(answer.body, {
 *     headers: {
 *       "content-type": "application/json",
 *       "content-language": answer.language,
 *       "x-policy-rule": answer.resolution.status === "matched" ? answer.resolution.pack.id : answer.resolution.status
 *     }
 *   })
 * ```
 */
export interface InitAnswer {
  readonly body: string
  readonly resolution: Resolution
  readonly language: string
}

/**
 * `GET /init`: resolves the visitor's rule and answers with pre-encoded fragments. Everything
 * that depends only on (outcome, language) is encoded once and reused; per request only the
 * location, signals, journey, vendor list and token are written. No database, no hashing of the
 * manifest; tokens for identical claims within the same second are reused.
 *
 * @example
 * ```ts
 * import { PolicyInit } from "@svc/backend"
 * import { Effect } from "effect"
 *
 * // A server-rendered page embeds what /init would answer a visitor from Bavaria, with no HTTP round trip.
 * const initFor = Effect.flatMap(PolicyInit, (init) =>
 *   init.answer({
 *     contract: undefined, location: { country: "DE", region: "BY", source: "header" }, gpc: false,
 *     acceptLanguage: "de-DE,de;q=0.9", experiment: null, journey: null, vendorIds: undefined, pageView: true,
 *     visitor: { read: () => ({ userAgent: "Mozilla/5.0", ipAddress: "203.0.113.0" }) }
 *   }))
 * const script = Effect.map(initFor, (answer) => `<script>window.svcInit = ${answer.body}</script>`)
 * ```
 */
export class PolicyInit extends Effect.Service<PolicyInit>()("@svc/backend/PolicyInit", {
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const manifest = yield* PolicyManifest
    const resolver = yield* PolicyResolver
    const snapshots = yield* PolicySnapshots
    const vendorList = yield* VendorList
    const sessions = yield* SessionReports
    const negotiate = makeLanguageNegotiator(manifest.languages, manifest.defaultLanguage)
    const options = config.manifest

    const heads = new Map<string, string>()
    const headFor = (resolution: Resolution, language: string, locationSource: LocationSource): string => {
      const key = `${resolution.key}|${language}|${locationSource}`
      let head = heads.get(key)
      if (head === undefined) {
        const pack = resolution.status === "matched" ? resolution.pack : null
        const policyResolution = resolution.status === "matched"
          ? {
            status: "matched",
            reason: null,
            matchedBy: resolution.matchedBy,
            policyId: resolution.pack.id,
            fingerprint: resolution.pack.fingerprint,
            model: resolution.pack.model,
            locationSource
          }
          : {
            status: resolution.status,
            reason: resolution.reason,
            matchedBy: null,
            policyId: null,
            fingerprint: null,
            model: null,
            locationSource
          }
        const json = JSON.stringify({
          schemaVersion: 1,
          revision: manifest.revision,
          hosting: config.hosting,
          policyResolution,
          policy: pack,
          language,
          translations: translationsForRule(manifest.translations(language), pack?.translationProfile),
          appName: options.appName ?? null,
          branding: options.branding ?? "svc",
          iab: options.iab ?? null,
          vendors: options.vendors ?? [],
          vendorListVersion: options.vendorListVersion ?? null,
          consentMode: consentModeForInit(options, pack, resolution.status === "matched" ? resolution.matchedBy : null)
        })
        head = json.slice(0, -1)
        heads.set(key, head) // bounded: outcomes × languages × 4 sources, all fixed
      }
      return head
    }

    let tokenSecond = 0
    const tokens = new Map<string, string>()
    const tokenFor = (
      resolution: Resolution & { status: "matched" },
      location: InitLocation,
      gpc: boolean
    ) => {
      const now = Date.now()
      const second = Math.floor(now / 1000)
      if (second !== tokenSecond) {
        tokens.clear()
        tokenSecond = second
      }
      const key = `${resolution.pack.id}|${location.country}|${location.region}|${gpc}`
      const cached = tokens.get(key)
      if (cached !== undefined) return Effect.succeed(Option.some(cached))
      return snapshots.sign({
        policyId: resolution.pack.id,
        fingerprint: resolution.pack.fingerprint,
        revision: manifest.revision,
        country: location.country,
        region: location.region,
        gpc
      }, now).pipe(Effect.tap((token) => {
        if (Option.isSome(token) && tokens.size < 10_000 && Math.floor(Date.now() / 1000) === second)
          tokens.set(key, token.value)
      }))
    }

    const noToken = Effect.succeed(Option.none<string>())

    /**
     * A page view's session report (spec Events 1): delivered, and logged at Debug when a logger
     * shows debug lines (checked first, so `/init` builds nothing when none does and no callback
     * is set).
     */
    const report = (
      request: InitRequest,
      resolution: Resolution,
      language: string,
      minimumLevel: LogLevel.LogLevel
    ): Effect.Effect<void> => {
      const logged = LogLevel.lessThanEqual(minimumLevel, LogLevel.Debug)
      if (!sessions.enabled && !logged) return Effect.void
      const { gpc, journey, location } = request
      const report: SessionReport = {
        source: "init",
        revision: manifest.revision,
        resolution: resolution.status,
        policy: resolution.status === "matched"
          ? {
            id: resolution.pack.id,
            fingerprint: resolution.pack.fingerprint,
            matchedBy: resolution.matchedBy,
            model: resolution.pack.model
          }
          : null,
        country: location.country ?? "",
        region: location.region,
        language,
        gpc,
        ...(journey === null ? {} : { journey }),
        ...request.visitor.read(),
        receivedAt: new Date()
      }
      if (!logged) return Effect.sync(() => sessions.deliver(report))
      return Effect.zipRight(logReport(report, Effect.logDebug), Effect.sync(() => sessions.deliver(report)))
    }

    // Plain combinators, not a generator: this runs for every /init.
    const answer = (request: InitRequest): Effect.Effect<InitAnswer> => {
      const { experiment, gpc, journey, location } = request
      const language = negotiate(request.acceptLanguage)
      const resolution = resolver.resolve({
        contract: request.contract,
        country: location.country,
        region: location.region
      })

      let tail = `,"location":${
        JSON.stringify({ country: location.country, region: location.region })
      },"gpc":${gpc},"experiment":${JSON.stringify(experiment)},"journey":${JSON.stringify(journey)}`
      if (resolution.status === "matched" && resolution.pack.model === "iab" && vendorList.enabled) {
        const gvl = vendorList.encodedFor(request.vendorIds)
        if (gvl !== undefined) tail += `,"gvl":${gvl}`
      }
      const token = resolution.status === "matched" && snapshots.enabled
        ? tokenFor(resolution, location, gpc)
        : noToken
      return Effect.flatMap(token, (token) => {
        const body = `${headFor(resolution, language, location.source)}${tail}${
          Option.isSome(token) ? `,"policySnapshotToken":${JSON.stringify(token.value)}` : ""
        }}`
        const answered: InitAnswer = { body, resolution, language }
        if (!request.pageView) return Effect.succeed(answered)
        return Effect.as(
          Effect.flatMap(
            FiberRef.get(FiberRef.currentMinimumLogLevel),
            (minimum) => report(request, resolution, language, minimum)
          ),
          answered
        )
      })
    }

    return { answer } as const
  }),
  dependencies: [
    PolicyManifest.Default,
    PolicyResolver.Default,
    PolicySnapshots.Default,
    VendorList.Default,
    SessionReports.Default
  ]
}) {}
