// Small hand guards for values the runtime does not control (localStorage, the network, the page):
// the bundles stay free of a schema library.

/** A non-null object (arrays included): its properties can be read. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null

/** `value[key]` when `value` is an object, else `undefined`. */
export const propertyOf = (value: unknown, key: string): unknown => (isRecord(value) ? value[key] : undefined)

export const isList = (value: unknown): value is ReadonlyArray<unknown> => Array.isArray(value)

export const isString = (value: unknown): value is string => typeof value === "string"

/** `undefined` or a string: an optional text field. */
export const isOptionalString = (value: unknown): value is string | undefined =>
  value === undefined || typeof value === "string"
