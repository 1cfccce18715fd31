import { Schema } from "effect"

/*
 * Wire shapes of the transparency log routes (docs/transparency-log.md). Hashes and leaf data are
 * standard base64 (RFC 4648 section 4), as in C2SP checkpoints.
 */

const NonNegativeInt = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))

/**
 * `GET /log/proof/:consentId`: the act's leaf, its inclusion proof and the checkpoint it proves against.
 *
 * @example
 * ```ts
 * import { verifyConsentProof } from "@svc/client"
 * import { ConsentProof } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A DPO checks offline that a consent is in the signed log, with the key obtained out of band.
 * const response = await fetch("https://consent.example.com/log/proof/cns_Vq3mZ8xKp2LtR9wA4bYc1Q", {
 *   headers: { authorization: `Bearer ${process.env.SVC_API_KEY}` }
 * })
 * const proof = Schema.decodeUnknownSync(ConsentProof)(await response.json())
 * const checked = verifyConsentProof(proof, process.env.SVC_LOG_VERIFIER_KEY ?? "")
 * console.log(checked.ok ? `leaf ${proof.leafIndex} of ${proof.treeSize}` : checked.reason)
 * ```
 */
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

/**
 * `GET /log/consistency?from=N&to=M`: RFC 9162 consistency proof between two tree sizes.
 *
 * @example
 * ```ts
 * import { verifyCheckpointConsistency } from "@svc/client"
 * import { ConsistencyProof } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A witness checks that today's checkpoint extends the one it kept last week (a public route).
 * const extendsOlder = async (older: { size: number; note: string }, newer: { size: number; note: string }) => {
 *   const response = await fetch(`https://consent.example.com/log/consistency?from=${older.size}&to=${newer.size}`)
 *   const { proof } = Schema.decodeUnknownSync(ConsistencyProof)(await response.json())
 *   const verifierKey = process.env.SVC_LOG_VERIFIER_KEY ?? ""
 *   return verifyCheckpointConsistency({ older: older.note, newer: newer.note, proof, verifierKey }).ok
 * }
 * ```
 */
export const ConsistencyProof = Schema.Struct({
  from: NonNegativeInt,
  to: NonNegativeInt,
  proof: Schema.Array(Schema.String)
}).annotations({ identifier: "ConsistencyProof" })
export type ConsistencyProof = typeof ConsistencyProof.Type

/**
 * `GET /log/consistency` query: two tree sizes, `from <= to`.
 *
 * @example
 * ```ts
 * import { ConsistencyQuery } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A caching proxy in front of svc reads the query as svc does: sizes arrive as strings.
 * const url = new URL("https://consent.example.com/log/consistency?from=1024&to=4096")
 * const { from, to } = Schema.decodeUnknownSync(ConsistencyQuery)(Object.fromEntries(url.searchParams)) // 1024, 4096
 * ```
 */
export const ConsistencyQuery = Schema.Struct({
  from: Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(0)),
  to: Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(0))
})
