import { HttpApiBuilder } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { parseTypeList } from "./choices.js"
import { ConsentReads } from "./reads.js"

export const ConsentsHttpLive = HttpApiBuilder.group(SvcApi, "consents", (handlers) =>
  Effect.gen(function*() {
    const reads = yield* ConsentReads
    return handlers.handle(
      "check",
      ({ urlParams }) => reads.check(urlParams.externalId, parseTypeList(urlParams.type) ?? [])
    )
  }))
