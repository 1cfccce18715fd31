import { Array, Effect } from "effect"

/** The most ids one statement names in an `IN` list (SQLite takes at most 32,766 parameters). */
const IDS_PER_STATEMENT = 500

/**
 * The rows `read` gives for `ids`, read in chunks of at most {@link IDS_PER_STATEMENT} ids, one
 * statement each, in chunk order. For reads whose rows each belong to one id (a subject's
 * consents): an order within an id holds, an order across ids only within a chunk.
 */
export const readInIdChunks = <A, E, R>(
  ids: Array.NonEmptyReadonlyArray<string>,
  read: (chunk: Array.NonEmptyReadonlyArray<string>) => Effect.Effect<ReadonlyArray<A>, E, R>
): Effect.Effect<ReadonlyArray<A>, E, R> =>
  ids.length <= IDS_PER_STATEMENT
    ? read(ids)
    : Effect.map(Effect.forEach(Array.chunksOf(ids, IDS_PER_STATEMENT), read), Array.flatten)
