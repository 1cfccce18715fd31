import { HttpApiBuilder } from "@effect/platform"
import { SvcApi } from "@svc/api"
import { Effect } from "effect"
import { LogProofs } from "./proofs.js"

export const TransparencyLogHttpLive = HttpApiBuilder.group(
  SvcApi,
  "transparencyLog",
  (handlers) =>
    Effect.gen(function*() {
      const proofs = yield* LogProofs
      return handlers
        .handle("checkpoint", () => proofs.checkpoint)
        .handle("key", () => proofs.key)
        .handle("proof", ({ path }) => proofs.proof(path.consentId))
        .handle("consistency", ({ urlParams }) => proofs.consistency(urlParams.from, urlParams.to))
    })
)
