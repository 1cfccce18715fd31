import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { SvcConfigurationError } from "../config/errors.js"
import type { SvcOptions } from "../config/options.js"
import { type ResolvedConfig, SvcConfig } from "../config/resolved.js"
import { resolveOptions } from "../config/validate.js"
import { Consents } from "../consents/consents.js"
import { sqlClientLayer } from "../database/client.js"
import { migrateDatabase } from "../database/migrate.js"
import { ReadSqlClient, readSqlClientLayer } from "../database/read-client.js"
import { reportSchemaState } from "../database/schema-state.js"
import { EventDeliveryLive } from "../events/deliverer.js"
import { EventSinksLive } from "../events/sinks-live.js"
import { LogSequencingLive } from "../transparency/sequencer.js"
import { Experiments } from "../experiments/summaries.js"
import { LegalDocuments } from "../legal/documents.js"
import { PolicyInit } from "../policy/init.js"
import { PolicyManifest } from "../policy/manifest.js"
import { SessionReports } from "../policy/sessions.js"
import { ConsentExports } from "../records/consent-exports.js"
import { Retention } from "../retention/purge.js"
import { Subjects } from "../subjects/subjects.js"
import { ServicesLive } from "./services.js"

/**
 * What `SvcServices.layer` provides: svc's public services, its resolved configuration, its `SqlClient`
 * and the `ReadSqlClient` its exports, insight page and experiment summaries read through.
 *
 * @example
 * ```ts
 * import { type SvcService, SvcServices } from "@svc/backend"
 * import { SvcTest } from "@svc/backend/testing"
 * import type { Layer } from "effect"
 *
 * // The app's tests run on an in-memory database; everything else on Postgres. Both provide the same services.
 * const SvcLive: Layer.Layer<SvcService, unknown> = process.env.NODE_ENV === "test"
 *   ? SvcTest.layer()
 *   : SvcServices.layer({ database: { dialect: "postgres", url: process.env.DATABASE_URL! } })
 * ```
 */
export type SvcService =
  | Consents
  | Subjects
  | LegalDocuments
  | Experiments
  | PolicyManifest
  | PolicyInit
  | SessionReports
  | Retention
  | ConsentExports
  | SvcConfig
  | SqlClient.SqlClient
  | ReadSqlClient

/**
 * How `SvcServices.layer` treats the database schema while the layer is built.
 *
 * @example
 * ```ts
 * import { type DatabaseOptions, SvcServices, type SvcServicesOptions } from "@svc/backend"
 *
 * // Locally the layer applies pending migrations; in production a deploy job runs `svc migrate` first.
 * const layerOptions: SvcServicesOptions = { migrate: process.env.NODE_ENV !== "production" }
 * const database: DatabaseOptions = { dialect: "postgres", url: process.env.DATABASE_URL! }
 * const SvcLive = SvcServices.layer({ database }, layerOptions)
 * ```
 */
export interface SvcServicesOptions {
  /** Apply pending migrations while the layer is built (before any service is used). */
  readonly migrate?: boolean | undefined
}

/** The database, migrated first when asked, else checked (a missing or old schema is logged at startup). */
const databaseLayer = (config: ResolvedConfig, migrate: boolean) =>
  migrate
    ? Layer.tap(sqlClientLayer(config.database), (context) =>
      migrateDatabase(config.database).pipe(
        Effect.tap((applied) =>
          applied.length === 0
            ? Effect.void
            : Effect.logInfo(`applied migrations: ${applied.map(([id, name]) => `${id}-${name}`).join(", ")}`)
        ),
        Effect.provide(context)
      ))
    : Layer.tap(sqlClientLayer(config.database), (context) => Effect.provide(reportSchemaState, context))

/**
 * Every service of an instance over its configuration and database, with the work an instance
 * does in the background (event delivery, the transparency log's sequencer, the periodic retention
 * run), and no HTTP. The routes (`makeSvcLayer`) are built on it.
 */
export const makeServicesLayer = (config: ResolvedConfig, options: SvcServicesOptions = {}) =>
  Layer.mergeAll(ServicesLive, EventDeliveryLive, LogSequencingLive).pipe(
    Layer.provideMerge(EventSinksLive),
    Layer.provideMerge(Layer.succeed(SvcConfig, config)),
    // After the primary (and its migrations): a second pool on `database.readUrl`, or the primary's.
    Layer.provideMerge(readSqlClientLayer(config.database)),
    Layer.provideMerge(databaseLayer(config, options.migrate === true))
  )

/** Options are checked as `svcInstance` checks them; an invalid set fails the layer with every problem. */
const resolved = (options: SvcOptions): Effect.Effect<ResolvedConfig, SvcConfigurationError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(resolveOptions(options))
    } catch (error) {
      return error instanceof SvcConfigurationError ? Effect.fail(error) : Effect.die(error)
    }
  })

/**
 * svc as an Effect library: its services with no HTTP in between, for an app that records the
 * consent ticked in its own sign-up form, checks consent in a job or publishes a legal document
 * from a deploy script.
 *
 * @example
 * ```ts
 * import { LegalDocuments, SvcServices } from "@svc/backend"
 * import { Effect, ManagedRuntime } from "effect"
 *
 * // A script: one runtime holding svc's services, used once and disposed.
 * const svc = ManagedRuntime.make(SvcServices.layer({ database: { dialect: "sqlite", url: "./svc.db" } }))
 * const current = Effect.flatMap(LegalDocuments, (documents) => documents.current("privacy_policy"))
 * const policy = await svc.runPromise(current)
 * console.log(`privacy policy ${policy.version}, effective ${policy.effectiveDate.toISOString()}`)
 * await svc.dispose()
 * ```
 */
export const SvcServices = {
  /**
   * `Consents`, `Subjects`, `LegalDocuments`, `Experiments`, `PolicyManifest`, `PolicyInit`,
   * `SessionReports` and `Retention` (plus `SvcConfig` and the `SqlClient`) from the options a
   * config file holds (`defineConfig`). `database: { layer }` shares the app's own `SqlClient`
   * (and `readLayer`, if given, is the one exports, insight and summaries read from).
   * While the layer lives it delivers events to the configured sinks and runs retention, as a
   * server would. `migrate: true` applies pending migrations first (or run `svc migrate`).
   * Invalid options fail the layer with `SvcConfigurationError`.
   *
   * @example
   * ```ts
   * import { Subjects, SvcServices } from "@svc/backend"
   * import { Effect } from "effect"
   *
   * const SvcLive = SvcServices.layer({ database: { dialect: "sqlite", url: "./svc.db" } }, { migrate: true })
   * // An access request answered from a support tool: everything svc holds about user-42.
   * const program = Effect.flatMap(Subjects, (subjects) => subjects.export({ externalId: "user-42" }))
   * const data = await Effect.runPromise(Effect.provide(program, SvcLive))
   * ```
   */
  layer: (
    options: SvcOptions,
    layerOptions: SvcServicesOptions = {}
  ): Layer.Layer<SvcService, SvcConfigurationError | unknown> =>
    Layer.unwrapEffect(Effect.map(resolved(options), (config) => makeServicesLayer(config, layerOptions)))
}
