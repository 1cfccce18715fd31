import { Schema } from "effect"

/**
 * `GET /health/live`: the process is up and answering.
 *
 * @example
 * ```ts
 * import { Liveness } from "@svc/schema"
 * import { Schema } from "effect"
 *
 * // A smoke test after deploy: the new instance answers at all.
 * const isLive = (baseUrl: string) =>
 *   fetch(`${baseUrl}/health/live`)
 *     .then((response) => response.json())
 *     .then(Schema.is(Liveness), () => false)
 * ```
 */
export const Liveness = Schema.Struct({ status: Schema.Literal("live") }).annotations({ identifier: "Liveness" })
export type Liveness = typeof Liveness.Type

/**
 * `GET /health/ready`: the database answered and its schema is current.
 *
 * @example
 * ```ts
 * import { HttpClient, HttpClientResponse } from "@effect/platform"
 * import { Readiness } from "@svc/schema"
 * import { Effect, Schedule } from "effect"
 *
 * // Route traffic to a new instance only once its database is reachable and migrated.
 * const waitUntilReady = HttpClient.get("http://10.0.3.12:3000/health/ready").pipe(
 *   Effect.flatMap(HttpClientResponse.filterStatusOk),
 *   Effect.flatMap(HttpClientResponse.schemaBodyJson(Readiness)),
 *   Effect.retry({ schedule: Schedule.spaced("1 second"), times: 120 })
 * )
 * ```
 */
export const Readiness = Schema.Struct({ status: Schema.Literal("ready") }).annotations({ identifier: "Readiness" })
export type Readiness = typeof Readiness.Type
