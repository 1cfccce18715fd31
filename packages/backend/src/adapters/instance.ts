import type { SvcOptions } from "../config/options.js"
import type { SvcLayerOptions } from "../instance/layer.js"
import { type SvcInstance, svcInstance } from "../instance/svc-instance.js"

/**
 * What every adapter mounts: an instance you built, or the options to build one.
 *
 * @example
 * ```ts
 * import { svcInstance } from "@svc/backend"
 * import { svcNode, type SvcSource } from "@svc/backend/node"
 * import { createServer } from "node:http"
 *
 * // Tests mount a shared instance (and dispose of it themselves); production passes the options.
 * const source: SvcSource = process.env.NODE_ENV === "test"
 *   ? svcInstance({ database: { dialect: "sqlite", url: ":memory:" } }, { migrate: true })
 *   : { database: { dialect: "postgres", url: process.env.DATABASE_URL! } }
 * createServer(svcNode(source)).listen(3000)
 * ```
 */
export type SvcSource = SvcInstance | SvcOptions

const isInstance = (source: SvcSource): source is SvcInstance =>
  "handler" in source && typeof source.handler === "function"

/** The instance behind an adapter: the one given, or a new one (with `layerOptions`, e.g. `migrate`). */
export const instanceOf = (source: SvcSource, layerOptions?: SvcLayerOptions): SvcInstance =>
  isInstance(source) ? source : svcInstance(source, layerOptions)
