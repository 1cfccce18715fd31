import { Schema } from "effect"

/**
 * Categories a rule may offer; `necessary` is always implied and never asked for.
 *
 * @example
 * ```ts
 * import { OptionalCategories } from "@svc/schema"
 *
 * // One checkbox per category a preferences dialog can ask about; `necessary` is not among them.
 * const checkboxes = OptionalCategories.map((category) =>
 *   `<label><input type="checkbox" name="consent" value="${category}"> ${category}</label>`
 * ).join("\n")
 * ```
 */
export const OptionalCategories = ["measurement", "marketing", "functionality", "experience"] as const
/**
 * One of the categories a visitor is asked about (`measurement`, `marketing`, `functionality`,
 * `experience`): the key of a receipt, a purpose or a GPC denial.
 *
 * @example
 * ```ts
 * import { OptionalCategory } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A "?withdraw=marketing" link in a newsletter footer names the category to turn off.
 * const fromQuery = Schema.decodeUnknownOption(OptionalCategory)
 * fromQuery("marketing") // Option.some("marketing")
 * fromQuery("necessary") // Option.none(): always granted, never asked for
 * ```
 */
export const OptionalCategory = Schema.Literal(...OptionalCategories).annotations({ identifier: "OptionalCategory" })
export type OptionalCategory = typeof OptionalCategory.Type

/**
 * Any consent category, `necessary` included: what a vendor belongs to and what each Google
 * Consent Mode type follows.
 *
 * @example
 * ```ts
 * import type { Category } from "@svc/schema"
 *
 * // The cookie table on the privacy page: every category must be listed, so a new one fails to compile.
 * const cookiesByCategory: Record<Category, ReadonlyArray<string>> = {
 *   necessary: ["session", "csrf_token"],
 *   measurement: ["_ga", "_gid"],
 *   marketing: ["_fbp", "_gcl_au"],
 *   functionality: ["language"],
 *   experience: []
 * }
 * ```
 */
export const Category = Schema.Literal("necessary", ...OptionalCategories).annotations({ identifier: "Category" })
export type Category = typeof Category.Type

/**
 * Category choices: any subset of the five keys, `{ measurement: true, marketing: false }`. A save
 * names only the categories the visitor was asked about; `necessary` may be sent but is always
 * applied as `true` (`appliedPreferences` says so). Unknown keys are refused.
 *
 * @example
 * ```ts
 * import { Preferences } from "@svc/schema"
 * import { Either, Schema } from "effect"
 *
 * const decode = Schema.decodeUnknownEither(Preferences)
 * Either.isRight(decode({ measurement: true, marketing: false })) // true
 * Either.isRight(decode({ measurement: true, advertising: true })) // false: unknown keys are refused
 * ```
 */
export const Preferences = Schema.Struct({
  necessary: Schema.optional(Schema.Boolean),
  measurement: Schema.optional(Schema.Boolean),
  marketing: Schema.optional(Schema.Boolean),
  functionality: Schema.optional(Schema.Boolean),
  experience: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "Preferences", parseOptions: { onExcessProperty: "error" } })
export type Preferences = typeof Preferences.Type
