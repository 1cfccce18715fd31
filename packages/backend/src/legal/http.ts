import { HttpApiBuilder } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { LegalDocuments } from "./documents.js"

export const LegalDocumentsHttpLive = HttpApiBuilder.group(
  SvcApi,
  "legalDocuments",
  (handlers) =>
    Effect.gen(function*() {
      const documents = yield* LegalDocuments
      return handlers
        .handle(
          "publish",
          ({ path, payload }) => Effect.map(documents.publish(path.type, payload), (policy) => ({ policy }))
        )
        .handle("current", ({ path }) => Effect.map(documents.current(path.type), (policy) => ({ policy })))
        .handle("list", ({ path }) => Effect.map(documents.list(path.type), (policies) => ({ policies })))
    })
)
