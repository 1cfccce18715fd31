import { Layer } from "effect"
import { ExperimentSummaries } from "../experiments/summaries.js"
import { ApiKeys } from "../http/api-keys.js"
import { PolicyManifest } from "../policy/manifest.js"
import { PolicySnapshots } from "../policy/snapshots.js"

/**
 * Every domain service of an instance. Each needs at most `SvcConfig` and `SqlClient`, which the
 * instance layer provides. Add a feature's services here.
 */
export const ServicesLive = Layer.mergeAll(ApiKeys.Default, ExperimentSummaries.Default)
