import { Schema } from "effect"
import { Category } from "./categories.js"
import { Token } from "./ids.js"

/** Keys a plain object cannot hold as data: a grant map keyed by one would lose it silently. */
export const reservedVendorIds: ReadonlyArray<string> = ["__proto__", "constructor", "prototype"]

export const VendorId = Token(128).pipe(
  Schema.filter((id) => !reservedVendorIds.includes(id), {
    message: (issue) => `${JSON.stringify(issue.actual)} is reserved and cannot be a vendor id`
  })
).annotations({ identifier: "VendorId" })

/** A vendor offered for vendor-level consent outside IAB. */
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
 */
export const GvlVendor = Schema.Struct(
  { id: Schema.Number, name: Schema.String },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "GvlVendor" })

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
