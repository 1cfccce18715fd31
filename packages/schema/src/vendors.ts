import { Schema } from "effect"
import { Category } from "./categories.js"
import { Token } from "./ids.js"

/**
 * Keys a plain object cannot hold as data: a grant map keyed by one would lose it silently.
 *
 * @example
 * ```ts
 * import { reservedVendorIds } from "@svc/schema"
 *
 * // The app's vendor admin form says why an id is refused before svc would refuse it.
 * const vendorIdProblem = (id: string) => (reservedVendorIds.includes(id) ? `"${id}" is reserved` : undefined)
 * ```
 */
export const reservedVendorIds: ReadonlyArray<string> = ["__proto__", "constructor", "prototype"]

/**
 * A vendor's id in a vendor list or a grant map: a `Token` of at most 128 characters that is not a
 * reserved key.
 *
 * @example
 * ```ts
 * import { VendorId } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * const isVendorId = Schema.is(VendorId)
 * isVendorId("google-analytics") // true
 * isVendorId("constructor") // false: reserved, a plain object would lose it
 * ```
 */
export const VendorId = Token(128).pipe(
  Schema.filter((id) => !reservedVendorIds.includes(id), {
    message: (issue) => `${JSON.stringify(issue.actual)} is reserved and cannot be a vendor id`
  })
).annotations({ identifier: "VendorId" })

/**
 * A vendor offered for vendor-level consent outside IAB.
 *
 * @example
 * ```ts
 * import type { Vendor } from "@svc/schema"
 *
 * // `manifest.vendors`: each vendor follows its category until an act names it.
 * const vendors = [
 *   {
 *     id: "google-analytics",
 *     name: "Google Analytics",
 *     category: "measurement",
 *     privacyPolicyUrl: "https://policies.google.com/privacy"
 *   },
 *   { id: "hotjar", name: "Hotjar", category: "experience", purposes: ["Heatmaps", "Session recordings"] }
 * ] satisfies ReadonlyArray<Vendor>
 * ```
 */
export const Vendor = Schema.Struct({
  id: VendorId,
  name: Schema.String,
  category: Category,
  purposes: Schema.optional(Schema.Array(Schema.String)),
  privacyPolicyUrl: Schema.optional(Schema.String)
}).annotations({ identifier: "Vendor" })
export type Vendor = typeof Vendor.Type

/**
 * IAB Global Vendor List (v3 shape). Only the fields svc reads are checked; the rest of each entry
 * passes through untouched so the browser's TCF encoder sees the published list.
 *
 * @example
 * ```ts
 * import type { GvlVendor } from "@svc/schema"
 *
 * // The partner names shown beside an IAB banner, for the vendors the site works with.
 * const partnerNames = (vendors: Readonly<Record<string, typeof GvlVendor.Type>>, ids: ReadonlyArray<number>) =>
 *   ids.flatMap((id) => vendors[String(id)]?.name ?? [])
 * ```
 */
export const GvlVendor = Schema.Struct(
  { id: Schema.Number, name: Schema.String },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "GvlVendor" })

/**
 * The IAB Global Vendor List as svc reads it (v3 shape; unread fields pass through): the list's
 * version, its purposes and its vendors by id.
 *
 * @example
 * ```ts
 * import { Gvl } from "@svc/schema"
 * import { Schema } from "effect"
 * import { readFile } from "node:fs/promises"
 *
 * // The file given as `gvl.file`, checked in CI before it is deployed.
 * const gvl = Schema.decodeUnknownSync(Gvl)(JSON.parse(await readFile("vendor-list.json", "utf8")))
 * console.log(`GVL version ${gvl.vendorListVersion}: ${Object.keys(gvl.vendors).length} vendors`)
 * ```
 */
export const Gvl = Schema.Struct(
  {
    vendorListVersion: Schema.Number,
    tcfPolicyVersion: Schema.optional(Schema.Number),
    gvlSpecificationVersion: Schema.optional(Schema.Number),
    lastUpdated: Schema.optional(Schema.String),
    purposes: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
    vendors: Schema.Record({ key: Schema.String, value: GvlVendor })
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "Gvl" })
export type Gvl = typeof Gvl.Type
