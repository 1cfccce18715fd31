import { HttpApiBuilder } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { ConsentLedger } from "./ledger.js"

export const ConsentsHttpLive = HttpApiBuilder.group(SvcApi, "consents", (handlers) =>
  Effect.gen(function*() {
    const ledger = yield* ConsentLedger
    return handlers.handle("check", ({ urlParams }) => ledger.check(urlParams.externalId, urlParams.type))
  }))
