import type { Response } from "maxmind"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { tableKey } from "./address.js"
import { RangeTable } from "./range-table.js"

/** Where an address is, as rules match on it: ISO 3166-1 country, ISO 3166-2 subdivision code alone. */
export interface IpLocation {
  readonly country: string
  readonly region: string | null
}

/** One loaded database: its lookup and what `/status` says about it. */
export interface LoadedDatabase {
  readonly kind: "built-in" | "file"
  /** When the data was built (the database's own date). */
  readonly buildDate: Date
  readonly lookup: (ip: string) => IpLocation | null
}

/** The built-in table's file, shipped in the package (`npm run build:geo` derives it). */
export const builtInPath = (): string => createRequire(import.meta.url).resolve("@svc/backend/geo-data")

/**
 * The built-in DB-IP Lite table (country and first-level subdivision per range), opened from its
 * file: the process holds its index, and each lookup reads the few ranges it needs (see
 * range-table.ts). A lookup whose read fails (an I/O error, a file cut short under the server)
 * answers no location, as for an unknown address, and hands the error to `onReadError`, so that it
 * is seen. `close` closes the file.
 */
export const openBuiltIn = (
  path: string,
  onReadError: (error: unknown) => void
): LoadedDatabase & { readonly close: () => void } => {
  const table = RangeTable.open(path)
  return {
    kind: "built-in",
    buildDate: new Date(table.header.buildDate),
    lookup: (ip) => {
      const key = tableKey(ip)
      if (key === null) return null
      try {
        return key.family === 4 ? table.ipv4(key.address) : table.ipv6(key.high, key.low)
      } catch (error) {
        onReadError(error)
        return null
      }
    },
    close: () => table.close()
  }
}

const isoCode = (value: unknown): string | null =>
  typeof value === "object" && value !== null && "iso_code" in value && typeof value.iso_code === "string" &&
    /^[A-Z0-9]{1,3}$/.test(value.iso_code)
    ? value.iso_code
    : null

/**
 * A MaxMind-format file: GeoIP2/GeoLite2 City or Country (`country.iso_code`,
 * `subdivisions[0].iso_code`), or a country file that names `country_code` (ip-location-db).
 */
export const readMaxMindRecord = (record: Response | null): IpLocation | null => {
  if (record === null) return null
  const country = "country" in record ? isoCode(record.country) : null
  const code = country ?? ("country_code" in record && typeof record.country_code === "string"
    ? record.country_code.toUpperCase()
    : null)
  if (code === null || !/^[A-Z]{2}$/.test(code)) return null
  const first = "subdivisions" in record && Array.isArray(record.subdivisions) ? record.subdivisions[0] : undefined
  return { country: code, region: isoCode(first) }
}

/**
 * An operator's MaxMind-format file, read whole into memory (the reader's way: lookups never touch
 * the disk). The `maxmind` package is loaded here, by the servers that use such a file only.
 */
export const loadMaxMindFile = async (path: string): Promise<LoadedDatabase> => {
  const { Reader } = await import("maxmind")
  const reader = new Reader<Response>(await readFile(path))
  return {
    kind: "file",
    buildDate: reader.metadata.buildEpoch,
    lookup: (ip) => {
      try {
        return readMaxMindRecord(reader.get(ip))
      } catch {
        return null // not an address the reader understands
      }
    }
  }
}
