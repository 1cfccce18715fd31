import { Predicate } from "effect"

/**
 * `value[key]` of a value whose shape is not known (a thrown error, a driver's result, parsed
 * JSON): `undefined` when it is not an object or has no such property.
 */
export const propertyOf = (value: unknown, key: PropertyKey): unknown =>
  Predicate.hasProperty(value, key) ? value[key] : undefined

/** Whether `value` is one of `values` (a `const` list of literals), narrowing it to their union. */
export const isOneOf = <T extends string | number>(values: ReadonlyArray<T>, value: unknown): value is T =>
  values.some((candidate) => candidate === value)
