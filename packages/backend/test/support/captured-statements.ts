import { Statement } from "@effect/sql"
import { Effect } from "effect"

/** A statement as it was sent: its SQL text and parameters. */
export type CapturedStatement = readonly [string, ReadonlyArray<unknown>]

/** Runs `effect` and gives its value with every statement it ran, compiled, in order (to EXPLAIN them). */
export const withCapturedStatements = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<{ readonly value: A; readonly statements: ReadonlyArray<CapturedStatement> }, E, R> =>
  Effect.suspend(() => {
    const statements: Array<CapturedStatement> = []
    const capture: Statement.Statement.Transformer = (statement) =>
      Effect.sync(() => {
        statements.push(statement.compile())
        return statement
      })
    return Effect.map(Statement.withTransformer(effect, capture), (value) => ({ value, statements }))
  })
