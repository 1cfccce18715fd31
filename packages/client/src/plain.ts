import type { Brand } from "effect"

/**
 * A decoded body with the contract's brands removed (`SubjectId` is a plain `string` here), so
 * users and their mocks can build data without casts. Dates stay `Date`.
 */
export type Plain<T> = T extends { readonly [Brand.BrandTypeId]: unknown } ? T extends string ? string : T
  : T extends Date ? T
  : T extends ReadonlyArray<infer E> ? ReadonlyArray<Plain<E>>
  : T extends object ? { readonly [K in keyof T]: Plain<T[K]> }
  : T
