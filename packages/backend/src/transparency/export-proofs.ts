import type { DatabaseError } from "@svc/api"
import type { ConsentProof } from "@svc/schema"
import { Effect, Option } from "effect"
import { SvcConfig } from "../config/resolved.js"
import { orDatabaseError } from "../database/database-error.js"
import { type LeafColumns, leafData } from "./leaf.js"
import { type CheckpointRow, LogRepo } from "./repository.js"
import { LogSigner } from "./signer.js"
import { type EdgeHashes, inclusionPath, nodesRead, type NodeReader, readerOf, rootOf } from "./tree.js"

/** An exported act: its leaf columns and the index the sequencer gave it (`null` until then). */
export type LoggedAct = LeafColumns & { readonly log_index: number | null }

/** An export's option: each record with its inclusion proof in the log (`proofs=true`). */
export interface ExportProofOption {
  readonly proofs?: boolean | undefined
}

/** The proofs of one export, a batch of acts at a time (`null`: the act is in no signed checkpoint). */
export interface ExportProofBatches {
  readonly proofsOf: (acts: ReadonlyArray<LoggedAct>) => Effect.Effect<Array<ConsentProof | null>, DatabaseError>
}

/**
 * Stored nodes kept across an export's batches. A batch of acts given at nearby times has nearby
 * leaves, whose audit paths share most of their nodes (all of the upper ones), so a batch fetches
 * the few it has not seen; the oldest unused ones go once the cache is full. 16,384 hashes are
 * ~2.5 MB with their keys: the export's memory stays the same however many records it streams.
 */
const CACHED_NODES = 16_384

const noProofs: ExportProofBatches = {
  proofsOf: (acts) => Effect.succeed(acts.map(() => null))
}

/**
 * Inclusion proofs for exports (`proofs=true`): every proof of one export is against the latest
 * checkpoint when the export starts, in the shape of `GET /log/proof/:consentId`. Per act it costs
 * O(log n) cached hashes and no hashing beyond its leaf: the hashes of the tree's right edge are
 * computed once per export (and checked against the checkpoint's root), the stored nodes come in
 * one statement per batch, and a cache bounded in size keeps those shared between acts.
 */
export class ExportProofs extends Effect.Service<ExportProofs>()("@svc/backend/ExportProofs", {
  dependencies: [LogRepo.Default, LogSigner.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* LogRepo
    const { signer } = yield* LogSigner
    const tenantId = config.tenantId ?? ""

    /** Every node `compute` reads that is not cached, fetched in one statement. */
    const fetchMissing = (cache: Map<string, Buffer>, keys: ReadonlyArray<readonly [number, number]>) => {
      const missing = keys.filter(([level, index]) => {
        const key = `${level}:${index}`
        const hash = cache.get(key)
        if (hash === undefined) return true
        // Used again: to the back of the eviction order.
        cache.delete(key)
        cache.set(key, hash)
        return false
      })
      return missing.length === 0
        ? Effect.succeed(new Map<string, Buffer>())
        : orDatabaseError(repo.nodes(tenantId, missing))
    }

    const remember = (cache: Map<string, Buffer>, fetched: ReadonlyMap<string, Buffer>) => {
      for (const [key, hash] of fetched) cache.set(key, hash)
      for (const key of cache.keys()) {
        if (cache.size <= CACHED_NODES) break
        cache.delete(key)
      }
    }

    const batchesAgainst = (signed: CheckpointRow) =>
      Effect.gen(function*() {
        const size = signed.tree_size
        const hashes = new Map<string, Buffer>()
        const edge: EdgeHashes = { get: (key) => hashes.get(key), set: (key, hash) => void hashes.set(key, hash) }
        const edgeNodes = yield* orDatabaseError(repo.nodes(tenantId, nodesRead((read) => rootOf(read, size))))
        const root = rootOf(readerOf(edgeNodes), size, edge)
        if (root.toString("hex") !== signed.root_hash) {
          return yield* Effect.die(
            new Error(`the stored tree of ${size} leaves does not have its checkpoint's root (run svc verify)`)
          )
        }
        // Every incomplete subtree a proof names lies on the right edge, all hashed above: a proof
        // that would hash another one (over placeholders, to find its nodes) is a bug, not a cost.
        const edgeReadOnly: EdgeHashes = {
          get: edge.get,
          set: () => {
            throw new Error("a proof named an incomplete subtree off the tree's right edge")
          }
        }
        const cache = new Map<string, Buffer>()
        const proofsOf = (acts: ReadonlyArray<LoggedAct>) =>
          Effect.gen(function*() {
            const inTree = acts.filter((act) => act.log_index !== null && act.log_index < size)
            const keys = new Map<string, readonly [number, number]>()
            for (const act of inTree) {
              for (const key of nodesRead((read) => inclusionPath(read, act.log_index!, size, edgeReadOnly))) {
                keys.set(`${key[0]}:${key[1]}`, key)
              }
            }
            const fetched = yield* fetchMissing(cache, [...keys.values()])
            const read: NodeReader = (level, index) => {
              const key = `${level}:${index}`
              const hash = fetched.get(key) ?? cache.get(key)
              if (hash === undefined) throw new Error(`the log has no node ${key}`)
              return hash
            }
            const proofs = acts.map((act): ConsentProof | null => {
              const index = act.log_index
              if (index === null || index >= size) return null
              return {
                leafIndex: index,
                treeSize: size,
                leaf: leafData(act).toString("base64"),
                auditPath: inclusionPath(read, index, size, edge).map((hash) => hash.toString("base64")),
                checkpoint: signed.note
              }
            })
            remember(cache, fetched)
            return proofs
          })
        const batches: ExportProofBatches = { proofsOf }
        return batches
      })

    /**
     * Starts an export's proofs against the latest checkpoint. Without a log (`transparencyLog`
     * not configured) or before its first checkpoint, every act's proof is `null`.
     */
    const start: Effect.Effect<ExportProofBatches, DatabaseError> = Effect.gen(function*() {
      if (signer === undefined) return noProofs
      const latest = yield* orDatabaseError(repo.latestCheckpoint(tenantId))
      return Option.isNone(latest) || latest.value.tree_size === 0 ? noProofs : yield* batchesAgainst(latest.value)
    })

    return { start } as const
  })
}) {}
