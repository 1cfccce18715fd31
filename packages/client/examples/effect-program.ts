import { FetchHttpClient } from "@effect/platform"
import { makeSvcApiClient } from "@svc/client"
import { Effect } from "effect"

export const status = (baseUrl: string) => Effect.gen(function*() {
  const svc = yield* makeSvcApiClient({ baseUrl })
  return yield* svc.status.status()
}).pipe(Effect.provide(FetchHttpClient.layer))
