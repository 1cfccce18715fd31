import { Schema } from "effect"
import { Timestamp } from "./time.js"

/** `DELETE /subjects/:id`, `DELETE /subjects?externalId=`: what an erasure did (zero counts when nothing matched). */
export const ErasureResult = Schema.Struct({
  erasedAt: Timestamp,
  /** Subjects whose personal data was removed. */
  subjects: Schema.Int,
  /** Their consent records, kept without personal data under a keyed hash of the subject id. */
  recordsKeptAsAnonymousProof: Schema.Int
}).annotations({ identifier: "ErasureResult" })
export type ErasureResult = typeof ErasureResult.Type
