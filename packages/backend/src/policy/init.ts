import { InitHeaders, type InitQuery } from "@svc/api"
import type { ExperimentArm, Journey, SessionReport } from "@svc/schema"
import { Effect, FiberRef, LogLevel, Option } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { clientIp } from "../http/client-ip.js"
import { LOCATION_HEADERS, normalizeCountry, normalizeRegion, requestLocation } from "../http/location.js"
import { gpcHeader } from "../http/request-context.js"
import { parseVendorHeader, VendorList } from "./gvl.js"
import { makeLanguageNegotiator } from "./language.js"
import { consentModeForInit } from "./consent-mode.js"
import { PolicyManifest, translationsForRule } from "./manifest.js"
import { type Resolution, PolicyResolver } from "./resolver.js"
import { logReport, SessionReports } from "./sessions.js"
import { PolicySnapshots } from "./snapshots.js"

type Headers = Readonly<Record<string, string | undefined>>

/** What one `GET /init` request carries, as the handler hands it over. */
export interface InitRequest {
  readonly query: typeof InitQuery.Type
  /** All request headers, lower-case names. */
  readonly headers: Headers
  readonly remoteAddress: string | undefined
  /** HEAD requests, prefetches and prerenders are not page views: they send no session report. */
  readonly pageView: boolean
}

/** `Sec-Purpose: prefetch` (and `prefetch;prerender`), or the older `Purpose` / `X-Moz` spellings. */
export const isSpeculative = (headers: Headers): boolean =>
  [headers["sec-purpose"], headers["purpose"], headers["x-moz"]].some((value) =>
    value !== undefined && /prefetch|prerender/i.test(value)
  )

/** What the handler needs back: the encoded body, plus facts for the request's log event. */
export interface InitAnswer {
  readonly body: string
  readonly resolution: Resolution
  readonly language: string
  readonly clientVersion: string | undefined
}

/**
 * Every request header `/init`'s answer depends on, so the response varies with each: the
 * contract's header inputs (`InitHeaders`) and the edge's location headers (`requestLocation`).
 * Derived from those declarations, never listed here; the edge adds `Origin`.
 */
export const INIT_READ_HEADERS: ReadonlyArray<string> = [...Object.keys(InitHeaders.fields), ...LOCATION_HEADERS]
export const INIT_VARY = INIT_READ_HEADERS.join(", ")

const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== ""

/** Query first, header second; a value that is not usable is skipped like an absent one. */
const firstValid = <A>(parse: (value: string) => A | null, ...values: ReadonlyArray<string | undefined>): A | null => {
  for (const value of values) {
    if (!present(value)) continue
    const parsed = parse(value)
    if (parsed !== null) return parsed
  }
  return null
}

const parseGpc = (value: string) => (value === "1" ? true : value === "0" ? false : null)

/** `<id>=<arm>`, each part URI-encoded. */
export const parseExperiment = (value: string): ExperimentArm | null => {
  const at = value.indexOf("=")
  if (at < 1) return null
  try {
    const id = decodeURIComponent(value.slice(0, at))
    const arm = decodeURIComponent(value.slice(at + 1))
    return isToken(id) && isToken(arm) ? { id, arm } : null
  } catch {
    return null
  }
}

/** What a save accepts as an experiment id or arm (`Token(128)`): one echoed by /init must be savable. */
const isToken = (s: string) => s.length >= 1 && s.length <= 128 && s.trim() === s && !/[\u0000-\u001f]/.test(s)

const journeyPart = (value: string | undefined) => (present(value) && value.length <= 128 ? value : undefined)

/** Journey parameters, each read under its name and then its legacy alpha.8/alpha.9 name. */
export const readJourney = (query: typeof InitQuery.Type): Journey | null => {
  const id = journeyPart(query.journey) ?? journeyPart(query.svcJourney)
  const scope = journeyPart(query.journeyScope) ?? journeyPart(query.svcJourneyScope)
  const stored = journeyPart(query.stored) ?? journeyPart(query.svcStored)
  if (id === undefined && scope === undefined && stored === undefined) return null
  return {
    ...(id === undefined ? {} : { id }),
    ...(scope === undefined ? {} : { scope }),
    ...(stored === undefined ? {} : { stored })
  }
}

/** A region override may carry its country (`US-CA`); returns that country. */
const regionCountry = (value: string | undefined): string | null => {
  const m = present(value) ? /^\s*([A-Za-z]{2})-/.exec(value) : null
  return m === null ? null : normalizeCountry(m[1])
}

/**
 * Where the visitor is: the overrides (`country`/`region` query, then `x-svc-*` headers) when
 * given, else the usual edge headers. An edge region is only used with the edge country, and a
 * `US-CA` override naming another country than the country override is ignored.
 */
export const initLocation = (query: typeof InitQuery.Type, headers: Headers) => {
  const regionValue = [query.region, headers["x-svc-region"]].find(present)
  const overrideRegion = firstValid(
    normalizeRegion as (v: string) => string | null,
    query.region,
    headers["x-svc-region"]
  )
  const regionPrefix = regionCountry(regionValue)
  const overrideCountry = firstValid(
    normalizeCountry as (v: string) => string | null,
    query.country,
    headers["x-svc-country"]
  )
  if (overrideCountry !== null) {
    return {
      country: overrideCountry,
      region: regionPrefix === null || regionPrefix === overrideCountry ? overrideRegion : null
    }
  }
  if (regionPrefix !== null && overrideRegion !== null) return { country: regionPrefix, region: overrideRegion }
  const edge = requestLocation(headers)
  return { country: edge.country, region: edge.country === null ? null : overrideRegion ?? edge.region }
}

/**
 * `GET /init`: resolves the visitor's rule and answers with pre-encoded fragments. Everything
 * that depends only on (outcome, language) is encoded once and reused; per request only the
 * location, signals, journey, vendor list and token are written. No database, no hashing of the
 * manifest; tokens for identical claims within the same second are reused.
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
    const headFor = (resolution: Resolution, language: string): string => {
      const key = `${resolution.key}|${language}`
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
            model: resolution.pack.model
          }
          : {
            status: resolution.status,
            reason: resolution.reason,
            matchedBy: null,
            policyId: null,
            fingerprint: null,
            model: null
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
        heads.set(key, head) // bounded: outcomes × languages, both fixed by the manifest
      }
      return head
    }

    let tokenSecond = 0
    const tokens = new Map<string, string>()
    const tokenFor = (
      resolution: Resolution & { status: "matched" },
      location: { country: string | null; region: string | null },
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

    const answer = (request: InitRequest): Effect.Effect<InitAnswer> =>
      Effect.gen(function*() {
        const { headers, query } = request
        const contract = [query.contract, headers["x-svc-policy-contract"]].find(present)?.trim()
        const location = initLocation(query, headers)
        const gpc = firstValid(parseGpc, query.gpc, headers["x-svc-gpc"]) === true || gpcHeader(headers)
        const language = negotiate(headers["accept-language"])
        const experiment = firstValid(parseExperiment, query.experiment, headers["x-svc-experiment"])
        const journey = readJourney(query)
        const resolution = resolver.resolve({ contract, ...location })

        let tail = `,"location":${JSON.stringify(location)},"gpc":${gpc},"experiment":${
          JSON.stringify(experiment)
        },"journey":${JSON.stringify(journey)}`
        if (resolution.status === "matched") {
          if (resolution.pack.model === "iab" && vendorList.enabled) {
            const gvl = vendorList.encodedFor(parseVendorHeader(headers["x-svc-vendors"]))
            if (gvl !== undefined) tail += `,"gvl":${gvl}`
          }
          if (snapshots.enabled) {
            const token = yield* tokenFor(resolution, location, gpc)
            if (Option.isSome(token)) tail += `,"policySnapshotToken":${JSON.stringify(token.value)}`
          }
        }

        // Spec Events 1: each /init report is delivered and logged (Debug: checked first, so /init
        // builds nothing when no logger shows debug lines and no callback is set).
        const logged = request.pageView &&
          LogLevel.lessThanEqual(yield* FiberRef.get(FiberRef.currentMinimumLogLevel), LogLevel.Debug)
        if ((sessions.enabled || logged) && request.pageView) {
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
            userAgent: headers["user-agent"] ?? null,
            ipAddress: clientIp(config.ipAddress, headers, request.remoteAddress),
            receivedAt: new Date()
          }
          if (logged) yield* logReport(report, Effect.logDebug)
          sessions.deliver(report)
        }

        return {
          body: `${headFor(resolution, language)}${tail}}`,
          resolution,
          language,
          clientVersion: [query.v, headers["x-svc-version"]].find(present)
        }
      })

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
