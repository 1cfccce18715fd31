import { Schema } from "effect"
import { Timestamp } from "./time.js"

/**
 * `DELETE /subjects/:id`, `DELETE /subjects?externalId=`: what an erasure did (zero counts when nothing matched).
 *
 * @example
 * ```ts
 * import { ErasureResult } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // The account-deletion job erases the user's subjects and logs what was kept.
 * const response = await fetch("https://consent.example.com/subjects?externalId=user-42", {
 *   method: "DELETE",
 *   headers: { authorization: `Bearer ${process.env.SVC_API_KEY}` }
 * })
 * const erased = Schema.decodeUnknownSync(ErasureResult)(await response.json())
 * console.log(`${erased.subjects} subject(s) erased; ${erased.recordsKeptAsAnonymousProof} record(s) kept as proof`)
 * ```
 */
export const ErasureResult = Schema.Struct({
  erasedAt: Timestamp,
  /** Subjects whose personal data was removed. */
  subjects: Schema.Int,
  /** Their consent records, kept without personal data under a keyed hash of the subject id. */
  recordsKeptAsAnonymousProof: Schema.Int
}).annotations({ identifier: "ErasureResult" })
export type ErasureResult = typeof ErasureResult.Type
