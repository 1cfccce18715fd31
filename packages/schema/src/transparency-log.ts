import { Schema } from "effect"

/*
 * Wire shapes of the transparency log routes (docs/transparency-log.md). Hashes and leaf data are
 * standard base64 (RFC 4648 section 4), as in C2SP checkpoints.
 */

const NonNegativeInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))

/** `GET /log/proof/:consentId`: the act's leaf, its inclusion proof and the checkpoint it proves against. */
export const ConsentProof = Schema.Struct({
  leafIndex: NonNegativeInt,
  treeSize: NonNegativeInt,
  /** Base64 of the leaf data (the canonical JSON the docs define); its leaf hash is SHA-256(0x00 || data). */
  leaf: Schema.String,
  /** RFC 9162 inclusion proof, base64 hashes, nearest the leaf first. */
  auditPath: Schema.Array(Schema.String),
  /** The signed checkpoint whose tree size is `treeSize`. */
  checkpoint: Schema.String
}).annotations({ identifier: "ConsentProof" })
export type ConsentProof = typeof ConsentProof.Type

/** `GET /log/consistency?from=N&to=M`: RFC 9162 consistency proof between two tree sizes. */
export const ConsistencyProof = Schema.Struct({
  from: NonNegativeInt,
  to: NonNegativeInt,
  proof: Schema.Array(Schema.String)
}).annotations({ identifier: "ConsistencyProof" })
export type ConsistencyProof = typeof ConsistencyProof.Type

/** `GET /log/consistency` query: two tree sizes, `from <= to`. */
export const ConsistencyQuery = Schema.Struct({
  from: Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(0)),
  to: Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(0))
})
