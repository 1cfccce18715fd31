import { Layer } from "effect"
import { ApiKeys } from "../http/api-keys.js"

/**
 * Every domain service of an instance. Each needs at most `SvcConfig` and `SqlClient`, which the
 * instance layer provides. Add a feature's services here.
 */
export const ServicesLive = Layer.mergeAll(ApiKeys.Default)
