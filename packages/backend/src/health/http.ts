import { HttpApiBuilder, HttpApp, HttpServerResponse } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { Readiness } from "./readiness.js"

/** Probe answers are about this instant: no cache (nor proxy) may keep one. */
const noStore = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", "no-store"))
)

/** The `health` group: `/health/live` answers while the process serves, `/health/ready` asks `Readiness`. */
export const HealthHttpLive = HttpApiBuilder.group(SvcApi, "health", (handlers) =>
  Effect.gen(function*() {
    const readiness = yield* Readiness
    return handlers
      .handle("live", () => Effect.as(noStore, { status: "live" as const }))
      .handle("ready", () => noStore.pipe(Effect.zipRight(readiness.check), Effect.as({ status: "ready" as const })))
  }))
