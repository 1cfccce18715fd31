import type { SvcOptions } from "../config/options.js"
import type { SvcLayerOptions } from "../instance/layer.js"
import { type SvcInstance, svcInstance } from "../instance/svc-instance.js"

/** What every adapter mounts: an instance you built, or the options to build one. */
export type SvcSource = SvcInstance | SvcOptions

const isInstance = (source: SvcSource): source is SvcInstance =>
  "handler" in source && typeof source.handler === "function"

/** The instance behind an adapter: the one given, or a new one (with `layerOptions`, e.g. `migrate`). */
export const instanceOf = (source: SvcSource, layerOptions?: SvcLayerOptions): SvcInstance =>
  isInstance(source) ? source : svcInstance(source, layerOptions)
