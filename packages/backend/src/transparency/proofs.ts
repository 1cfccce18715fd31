import { type DatabaseError, InvalidRequest, NotFound } from "@svc/api"
import type { ConsentProof, ConsistencyProof } from "@svc/schema"
import { leafHash } from "@svc/schema/transparency"
import { Effect, Option } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { leafData } from "./leaf.js"
import { LogRepo } from "./repository.js"
import { LogSigner } from "./signer.js"
import { consistencyPath, inclusionPath, nodesRead, type NodeReader, readerOf } from "./tree.js"

const notConfigured = new NotFound({
  message: "This backend keeps no transparency log (transparencyLog is not configured)"
})

/**
 * What the log routes answer: the latest checkpoint, the verifier key, a record's inclusion proof
 * against the latest checkpoint, and consistency proofs between tree sizes it has signed.
 */
export class LogProofs extends Effect.Service<LogProofs>()("@svc/backend/LogProofs", {
  dependencies: [LogRepo.Default, LogSigner.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* LogRepo
    const tenantId = config.tenantId ?? ""
    const { signer } = yield* LogSigner

    const configured = signer === undefined ? Effect.fail(notConfigured) : Effect.void

    const latest = Effect.gen(function*() {
      yield* configured
      const found = yield* orDatabaseError(repo.latestCheckpoint(tenantId))
      if (Option.isNone(found)) {
        return yield* Effect.fail(new NotFound({ message: "The log has signed no checkpoint yet; try again shortly" }))
      }
      return found.value
    })

    /** Runs a proof over the nodes it reads, fetched in one round. */
    const withNodes = <A>(compute: (read: NodeReader) => A) =>
      Effect.gen(function*() {
        const nodes = yield* orDatabaseError(repo.nodes(tenantId, nodesRead(compute)))
        return compute(readerOf(nodes))
      })

    /** `GET /log/checkpoint`. */
    const checkpoint: Effect.Effect<string, NotFound | DatabaseError> = Effect.map(latest, (row) => row.note)

    /** `GET /log/key`. */
    const key: Effect.Effect<string, NotFound> = signer === undefined
      ? Effect.fail(notConfigured)
      : Effect.succeed(signer.verifierKey)

    /** `GET /log/proof/:consentId`. */
    const proof = (consentId: string): Effect.Effect<ConsentProof, NotFound | DatabaseError> =>
      Effect.gen(function*() {
        yield* configured
        const act = yield* orDatabaseError(repo.leafOf(tenantId, consentId))
        if (Option.isNone(act)) return yield* Effect.fail(new NotFound({ message: "No such consent record" }))
        const index = act.value.log_index
        const signed = yield* latest
        if (index === null || index >= signed.tree_size) {
          return yield* Effect.fail(
            new NotFound({
              message:
                "This record is not in a signed checkpoint yet; it is within two checkpoint intervals of its save"
            })
          )
        }
        const data = leafData(act.value)
        const found = yield* withNodes((read) => ({
          auditPath: inclusionPath(read, index, signed.tree_size),
          stored: read(0, index)
        }))
        // The stored leaf must be the one the row makes now: the proof of an edited row would not verify.
        if (!found.stored.equals(leafHash(data))) {
          return yield* Effect.die(
            new Error(`consent ${consentId}: its row no longer matches leaf ${index} (run svc verify)`)
          )
        }
        const auditPath = found.auditPath
        return {
          leafIndex: index,
          treeSize: signed.tree_size,
          leaf: data.toString("base64"),
          auditPath: auditPath.map((hash) => hash.toString("base64")),
          checkpoint: signed.note
        }
      })

    /** `GET /log/consistency?from=&to=`. */
    const consistency = (
      from: number,
      to: number
    ): Effect.Effect<ConsistencyProof, NotFound | InvalidRequest | DatabaseError> =>
      Effect.gen(function*() {
        const signed = yield* latest
        const size = signed.tree_size
        if (from > to) return yield* Effect.fail(new InvalidRequest({ message: "from: must not be greater than to" }))
        if (to > size) {
          return yield* Effect.fail(
            new InvalidRequest({ message: `to: the latest checkpoint's tree size is ${size}` })
          )
        }
        const proof = yield* withNodes((read) => consistencyPath(read, from, to))
        return { from, to, proof: proof.map((hash) => hash.toString("base64")) }
      })

    return { checkpoint, key, proof, consistency } as const
  })
}) {}
