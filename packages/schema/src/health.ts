import { Schema } from "effect"

/** `GET /health/live`: the process is up and answering. */
export const Liveness = Schema.Struct({ status: Schema.Literal("live") }).annotations({ identifier: "Liveness" })
export type Liveness = typeof Liveness.Type

/** `GET /health/ready`: the database answered and its schema is current. */
export const Readiness = Schema.Struct({ status: Schema.Literal("ready") }).annotations({ identifier: "Readiness" })
export type Readiness = typeof Readiness.Type
