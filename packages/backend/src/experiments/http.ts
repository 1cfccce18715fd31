import { HttpApiBuilder } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { Experiments } from "./summaries.js"

export const ExperimentsHttpLive = HttpApiBuilder.group(SvcApi, "experiments", (handlers) =>
  Effect.gen(function*() {
    const experiments = yield* Experiments
    return handlers.handle("summary", ({ path, urlParams }) => experiments.summary(path.id, urlParams))
  }))
