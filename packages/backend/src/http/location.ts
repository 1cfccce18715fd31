/** Visitor location from the usual edge headers (CDN and hosting platforms set these). */
export interface RequestLocation {
  readonly country: string | null
  /** Subdivision code alone, e.g. `CA` for California. */
  readonly region: string | null
}

/** Country headers in the order they are read; the first usable one wins. */
export const COUNTRY_HEADERS = ["cf-ipcountry", "x-vercel-ip-country", "cloudfront-viewer-country", "x-country-code",
  "fastly-geo-country"] as const
/** Region headers in the order they are read, once a country is known. */
export const REGION_HEADERS = ["x-vercel-ip-country-region", "cloudfront-viewer-country-region", "cf-region-code",
  "x-region-code"] as const
/** Every header `requestLocation` reads: a response built from the location varies with each. */
export const LOCATION_HEADERS: ReadonlyArray<string> = [...COUNTRY_HEADERS, ...REGION_HEADERS]

const country = (value: string | undefined): string | null => {
  const v = value?.trim().toUpperCase()
  // `XX` and `T1` are Cloudflare's unknown and Tor markers, not countries.
  return v !== undefined && /^[A-Z]{2}$/.test(v) && v !== "XX" && v !== "T1" ? v : null
}

/** Accepts `CA` or `US-CA`; returns the subdivision part, upper case. */
export const normalizeRegion = (value: string | undefined): string | null => {
  const v = value?.trim().toUpperCase()
  if (v === undefined || v === "") return null
  const part = v.includes("-") ? v.slice(v.indexOf("-") + 1) : v
  return /^[A-Z0-9]{1,3}$/.test(part) ? part : null
}

export const normalizeCountry = country

/** Where a visitor's location came from (the wide event's `location.source`, `/init`'s `locationSource`). */
export type LocationSource = "override" | "header" | "ip-database" | "none"

/** A location and where it came from. */
export interface SourcedLocation extends RequestLocation {
  readonly source: LocationSource
}

const NOWHERE: SourcedLocation = { country: null, region: null, source: "none" }

/**
 * The visitor's location without overrides: the edge's headers, else the client address looked
 * up in the IP database, else none. `lookup` is `GeoIp`'s; `address` gives the unmasked client
 * IP (`visitorAddress`), asked only when the edge named no country.
 */
export const visitorLocation = (
  headers: Readonly<Record<string, string | undefined>>,
  lookup: (ip: string) => { readonly country: string; readonly region: string | null } | null,
  address: () => string | undefined
): SourcedLocation => {
  const edge = requestLocation(headers)
  if (edge.country !== null) return { country: edge.country, region: edge.region, source: "header" }
  const ip = address()
  const found = ip === undefined ? null : lookup(ip)
  return found === null ? NOWHERE : { country: found.country, region: found.region, source: "ip-database" }
}

export const requestLocation = (headers: Readonly<Record<string, string | undefined>>): RequestLocation => {
  let c: string | null = null
  for (const name of COUNTRY_HEADERS) if ((c = country(headers[name])) !== null) break
  let r: string | null = null
  if (c !== null) { for (const name of REGION_HEADERS) if ((r = normalizeRegion(headers[name])) !== null) break }
  return { country: c, region: r }
}
