import { HttpApiBuilder } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { ExperimentSummaries } from "./summaries.js"

export const ExperimentsHttpLive = HttpApiBuilder.group(SvcApi, "experiments", (handlers) =>
  Effect.gen(function*() {
    const summaries = yield* ExperimentSummaries
    return handlers.handle("summary", ({ path, urlParams }) => summaries.summarize(path.id, urlParams))
  }))
