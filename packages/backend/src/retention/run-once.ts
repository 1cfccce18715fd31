import { Effect, Layer } from "effect"
import type { SvcOptions } from "../config/options.js"
import { SvcConfig } from "../config/resolved.js"
import { resolveOptions } from "../config/validate.js"
import { sqlClientLayer } from "../database/client.js"
import { Retention, type RetentionReport } from "./purge.js"

/**
 * One retention run against the configured database, outside a server (`svc purge`, for cron).
 * Throws `SvcConfigurationError` for invalid options; the database must be migrated. `now`
 * replaces the clock (what a test uses to stand at a later day).
 *
 * @example
 * ```ts
 * import { purgeOnce } from "@svc/backend"
 *
 * // A nightly cron job, with the same retention rules as the running instances.
 * const report = await purgeOnce({
 *   database: { dialect: "postgres", url: process.env.DATABASE_URL! },
 *   retention: { ipAddressDays: 90, userAgentDays: 90, recordDays: 3 * 365 }
 * })
 * console.log(`${report.recordsRetired} records retired, ${report.subjectsDeleted} idle subjects deleted`)
 * ```
 */
export const purgeOnce = (options: SvcOptions, at?: { readonly now?: number }): Promise<RetentionReport> => {
  const config = resolveOptions(options)
  const layer = Retention.Default.pipe(
    Layer.provide(Layer.succeed(SvcConfig, config)),
    Layer.provide(sqlClientLayer(config.database))
  )
  return Effect.runPromise(
    Effect.flatMap(Retention, (purge) => purge.runOnce(at?.now)).pipe(Effect.provide(layer))
  )
}
