import { Schema } from "effect"

/**
 * Codecs for column values as the three drivers return them. One column type can come back in
 * several JavaScript types, so each codec accepts all of them and decodes to one.
 */

/** Epoch milliseconds as a driver returns a BIGINT: a number, or a string on Postgres. */
export const Millis = Schema.Union(Schema.Number, Schema.NumberFromString)

/** A count or an average: a number (SQLite), a string (Postgres COUNT/AVG, MySQL SUM/AVG) or a bigint. */
export const SqlNumber = Schema.Union(
  Schema.Number,
  Schema.NumberFromString,
  Schema.BigIntFromSelf.pipe(
    Schema.transform(Schema.Number, { strict: true, decode: (n) => Number(n), encode: (n) => BigInt(n) })
  )
)
