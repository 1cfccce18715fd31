import { FetchHttpClient } from "@effect/platform"
import { SvcHttpClient } from "@svc/client"
import { Effect, Layer } from "effect"

export const SvcLive = (baseUrl: string, apiKey: string) =>
  SvcHttpClient.layer({ baseUrl, apiKey }).pipe(Layer.provide(FetchHttpClient.layer))

export const mayMail = (userId: string) =>
  Effect.gen(function*() {
    const svc = yield* SvcHttpClient
    const { results } = yield* svc.consents.check({ urlParams: { externalId: userId, type: "privacy_policy" } })
    return results.privacy_policy?.isLatestPolicy === true
  })
