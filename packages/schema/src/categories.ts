import { Schema } from "effect"

/** Categories a rule may offer; `necessary` is always implied and never asked for. */
export const OptionalCategories = ["measurement", "marketing", "functionality", "experience"] as const
export const OptionalCategory = Schema.Literal(...OptionalCategories).annotations({ identifier: "OptionalCategory" })
export type OptionalCategory = typeof OptionalCategory.Type

export const Category = Schema.Literal("necessary", ...OptionalCategories).annotations({ identifier: "Category" })
export type Category = typeof Category.Type

/** Category choices as sent on a save: `{ measurement: true, marketing: false, ... }`. */
export const Preferences = Schema.Record({ key: Category, value: Schema.Boolean }).annotations({
  identifier: "Preferences"
})
export type Preferences = typeof Preferences.Type
