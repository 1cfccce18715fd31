import type { Layer } from "effect"
import type { SvcOptions } from "./config/options.js"
import { type SvcService, SvcServices } from "./instance/svc-services.js"

/**
 * The options of `SvcTest.layer`: an instance's options, except the database (always in memory).
 *
 * @example
 * ```ts
 * import { expect, it } from "@effect/vitest"
 * import { Retention } from "@svc/backend"
 * import { SvcTest, type SvcTestOptions } from "@svc/backend/testing"
 * import { Effect } from "effect"
 *
 * // The app's own retention rules, tested on a fresh in-memory database.
 * const options: SvcTestOptions = { retention: { ipAddressDays: 30, recordDays: 365 } }
 * it.effect("a run on an empty database changes nothing", () =>
 *   Effect.gen(function*() {
 *     const report = yield* Effect.flatMap(Retention, (retention) => retention.runOnce())
 *     expect(report.recordsRetired).toBe(0)
 *   }).pipe(Effect.provide(SvcTest.layer(options))))
 * ```
 */
export type SvcTestOptions = Omit<SvcOptions, "database">

/**
 * svc's services for an app's own tests: `SvcServices.layer` on a migrated SQLite database in
 * memory, new each time the layer is built, so nothing is left behind and nothing needs a server.
 * Pass the options your app runs with (manifest, legal document snapshots, retention, …) to test
 * against the same rules. Dates come from Effect's `Clock`, so `TestClock` moves them.
 *
 * @example
 * ```ts
 * import { it } from "@effect/vitest"
 * import { LegalDocuments } from "@svc/backend"
 * import { SvcTest } from "@svc/backend/testing"
 * import { Effect } from "effect"
 *
 * it.effect("publishes the privacy policy", () =>
 *   Effect.gen(function*() {
 *     const documents = yield* LegalDocuments
 *     yield* documents.publish("privacy_policy", { version: "1", hash: "h1", effectiveDate: new Date(0) })
 *   }).pipe(Effect.provide(SvcTest.layer())))
 * ```
 */
export const SvcTest = {
  layer: (options: SvcTestOptions = {}): Layer.Layer<SvcService, unknown> =>
    SvcServices.layer({ ...options, database: { dialect: "sqlite", url: ":memory:" } }, { migrate: true })
}
