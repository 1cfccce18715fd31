import { InitHeaders, type InitQuery } from "@svc/api"
import type { ExperimentArm, Journey } from "@svc/schema"
import type { ResolvedConfig } from "../config/resolved.js"
import type { IpLocation } from "../geo/geo-ip.js"
import { clientIp, visitorAddress } from "../http/client-ip.js"
import { LOCATION_HEADERS, normalizeCountry, normalizeRegion, visitorLocation } from "../http/location.js"
import { gpcHeader } from "../http/request-context.js"
import { parseVendorHeader } from "./gvl.js"
import type { InitLocation, InitRequest, LazyVisitor } from "./init.js"
import type { Visitor } from "./sessions.js"

/*
 * The HTTP side of `GET /init`: its query and headers read into the service's `InitRequest`, once,
 * by the pipeline's handler (`http.ts`) and by the fast path (`instance/init-fast-path.ts`) alike. The
 * contract's `InitHeaders` names the inputs read here; the edge's location headers are named in
 * `http/location.ts`.
 */

type Headers = Readonly<Record<string, string | undefined>>
type Query = typeof InitQuery.Type
type ContractHeaders = typeof InitHeaders.Type

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
export const readJourney = (query: Query): Journey | null => {
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
 * Where the visitor is, and where that came from: the overrides (`country`/`region` query, then
 * `x-svc-*` headers) when given, else the usual edge headers, else the client address in the IP
 * database, else none. A region override applies to the edge's or the database's country, and a
 * `US-CA` override naming another country than the country override is ignored.
 */
export const initLocation = (
  query: Query,
  headers: ContractHeaders,
  raw: Headers,
  lookup: (ip: string) => IpLocation | null,
  addressHeaders: ReadonlyArray<string>,
  remoteAddress: string | undefined
): InitLocation => {
  const regionValue = [query.region, headers["x-svc-region"]].find(present)
  const overrideRegion = firstValid(
    normalizeRegion,
    query.region,
    headers["x-svc-region"]
  )
  const regionPrefix = regionCountry(regionValue)
  const overrideCountry = firstValid(
    normalizeCountry,
    query.country,
    headers["x-svc-country"]
  )
  if (overrideCountry !== null) {
    return {
      country: overrideCountry,
      region: regionPrefix === null || regionPrefix === overrideCountry ? overrideRegion : null,
      source: "override"
    }
  }
  if (regionPrefix !== null && overrideRegion !== null)
    return { country: regionPrefix, region: overrideRegion, source: "override" }
  const found = visitorLocation(raw, lookup, () => visitorAddress(addressHeaders, raw, remoteAddress))
  return found.country === null ? found : { ...found, region: overrideRegion ?? found.region }
}

/** `Sec-Purpose: prefetch` (and `prefetch;prerender`), or the older `Purpose` / `X-Moz` spellings. */
export const isSpeculative = (raw: Headers): boolean =>
  [raw["sec-purpose"], raw["purpose"], raw["x-moz"]].some((value) =>
    value !== undefined && /prefetch|prerender/i.test(value)
  )

/** The client's version (`v`, else `X-SVC-Version`), for the request's log line. */
export const initClientVersion = (query: Query, headers: ContractHeaders): string | undefined =>
  [query.v, headers["x-svc-version"]].find(present)

/**
 * The visitor of one request, read only when a session report is built (most answers build none).
 * A class, not a closure: a closure made per request cost the fast path ~2 µs of its ~17 µs
 * (measured in one process against the code before it; an instance costs nothing measurable).
 */
class RequestVisitor implements LazyVisitor {
  constructor(
    private readonly config: ResolvedConfig,
    private readonly raw: Headers,
    private readonly remoteAddress: string | undefined
  ) {}
  read(): Visitor {
    return {
      userAgent: this.raw["user-agent"] ?? null,
      ipAddress: clientIp(this.config.ipAddress, this.raw, this.remoteAddress)
    }
  }
}

/**
 * Reads one `GET /init` (or `HEAD`) into the service's input: `query` and `headers` as the contract
 * decoded them, `raw` every request header (the edge's location, the user agent, speculation and the
 * configured client IP headers), `remoteAddress` the socket's peer, `lookup` the IP database's
 * (`GeoIp`), read only when no override or edge header gives the country.
 */
export const readInitRequest = (
  config: ResolvedConfig,
  query: Query,
  headers: ContractHeaders,
  raw: Headers,
  remoteAddress: string | undefined,
  head: boolean,
  lookup: (ip: string) => IpLocation | null
): InitRequest => ({
  contract: [query.contract, headers["x-svc-policy-contract"]].find(present)?.trim(),
  location: initLocation(query, headers, raw, lookup, config.ipAddress.headers, remoteAddress),
  gpc: firstValid(parseGpc, query.gpc, headers["x-svc-gpc"]) === true || gpcHeader(headers),
  acceptLanguage: headers["accept-language"],
  experiment: firstValid(parseExperiment, query.experiment, headers["x-svc-experiment"]),
  journey: readJourney(query),
  vendorIds: parseVendorHeader(headers["x-svc-vendors"]),
  pageView: !head && !isSpeculative(raw),
  visitor: new RequestVisitor(config, raw, remoteAddress)
})
