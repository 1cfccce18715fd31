import { Schema } from "effect"

/** Categories a rule may offer; `necessary` is always implied and never asked for. */
export const OptionalCategories = ["measurement", "marketing", "functionality", "experience"] as const
export const OptionalCategory = Schema.Literal(...OptionalCategories).annotations({ identifier: "OptionalCategory" })
export type OptionalCategory = typeof OptionalCategory.Type

export const Category = Schema.Literal("necessary", ...OptionalCategories).annotations({ identifier: "Category" })
export type Category = typeof Category.Type

/**
 * Category choices: any subset of the five keys, `{ measurement: true, marketing: false }`. A save
 * names only the categories the visitor was asked about; `necessary` may be sent but is always
 * applied as `true` (`appliedPreferences` says so). Unknown keys are refused.
 */
export const Preferences = Schema.Struct({
  necessary: Schema.optional(Schema.Boolean),
  measurement: Schema.optional(Schema.Boolean),
  marketing: Schema.optional(Schema.Boolean),
  functionality: Schema.optional(Schema.Boolean),
  experience: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "Preferences", parseOptions: { onExcessProperty: "error" } })
export type Preferences = typeof Preferences.Type
