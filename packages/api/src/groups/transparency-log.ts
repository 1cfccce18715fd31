import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { ConsentId, ConsentProof, ConsistencyProof, ConsistencyQuery } from "@svc/schema"
import { Schema } from "effect"
import { NotFoundWire } from "../errors.js"
import { ApiKeyAuth } from "../security.js"

const PlainText = Schema.String.pipe(HttpApiSchema.withEncoding({ kind: "Text", contentType: "text/plain" }))

/**
 * The tamper-evident consent log (docs/transparency-log.md): its checkpoint, verifier key and
 * consistency proofs are public, so anyone can keep and check them; a record's proof needs the API key.
 *
 * @example
 * ```ts
 * import { HttpApi, HttpApiClient } from "@effect/platform"
 * import { TransparencyLogGroup } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // An outside auditor keeps every checkpoint it sees, with no key: the public routes need none.
 * class Log extends HttpApi.make("log").add(TransparencyLogGroup) {}
 * const keepCheckpoint = Effect.gen(function*() {
 *   const log = yield* HttpApiClient.make(Log, { baseUrl: "https://consent.example.com" })
 *   const checkpoint = yield* log.transparencyLog.checkpoint()
 *   return { fetchedAt: new Date().toISOString(), checkpoint }
 * })
 * ```
 */
export class TransparencyLogGroup extends HttpApiGroup.make("transparencyLog")
  .add(
    HttpApiEndpoint.get("checkpoint", "/log/checkpoint")
      .addSuccess(PlainText)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "The latest signed checkpoint (C2SP tlog-checkpoint, Ed25519 signed note)")
  )
  .add(
    HttpApiEndpoint.get("key", "/log/key")
      .addSuccess(PlainText)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "The log's note verifier key (<name>+<hash>+<base64>)")
  )
  .add(
    HttpApiEndpoint.get("consistency", "/log/consistency")
      .setUrlParams(ConsistencyQuery)
      .addSuccess(ConsistencyProof)
      .addError(NotFoundWire)
      .annotate(
        OpenApi.Summary,
        "RFC 9162 consistency proof between two tree sizes, from <= to <= the latest checkpoint"
      )
  )
  .add(
    HttpApiEndpoint.get("proof", "/log/proof/:consentId")
      .setPath(Schema.Struct({ consentId: ConsentId }))
      .addSuccess(ConsentProof)
      .addError(NotFoundWire)
      .middleware(ApiKeyAuth)
      .annotate(
        OpenApi.Summary,
        "A consent record's leaf, its inclusion proof and the signed checkpoint it proves against"
      )
  ) {}
