import { Effect, ParseResult, Schema } from "effect"
import { compileDecoder } from "../codec/compiled.js"

/**
 * What `decode` returns, run now: a `ParseError` it throws (as the compiled decoders of
 * `codec/compiled.ts` do for a row that does not decode) becomes the failure, anything else it
 * throws a defect. For statements that decode their rows with compiled decoders of their own.
 */
export const decodedNow = <A>(decode: () => A): Effect.Effect<A, ParseResult.ParseError> => {
  try {
    return Effect.succeed(decode())
  } catch (error) {
    return ParseResult.isParseError(error) ? Effect.fail(error) : Effect.die(error)
  }
}

/**
 * Decodes many driver rows with the compiled decoder of `schema` (`codec/compiled.ts`): the same
 * values as Effect's decoder at a fraction of its cost and garbage, and a row that does not
 * decode fails with Effect's own `ParseError`, as there.
 */
export const rowsDecoder = <A, I>(
  schema: Schema.Schema<A, I, never>
): (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, ParseResult.ParseError> => {
  const decodeRow = compileDecoder(schema)
  return (rows) => decodedNow(() => rows.map(decodeRow))
}

/** `SqlSchema.findAll` for statements that return many rows, decoded by {@link rowsDecoder}. */
export const findAll = <IA, II, A, AI, R, E>(options: {
  readonly Request: Schema.Schema<IA, II, never>
  readonly Result: Schema.Schema<A, AI, never>
  readonly execute: (request: II) => Effect.Effect<ReadonlyArray<unknown>, E, R>
}) => {
  const encodeRequest = Schema.encode(options.Request)
  const decodeRows = rowsDecoder(options.Result)
  return (request: IA): Effect.Effect<ReadonlyArray<A>, E | ParseResult.ParseError, R> =>
    Effect.flatMap(Effect.flatMap(encodeRequest(request), options.execute), decodeRows)
}
