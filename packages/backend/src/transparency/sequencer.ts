import { SqlClient } from "@effect/sql"
import { LogCheckpointEvent } from "@svc/schema"
import { checkpointText, leafHash, type NoteSigner, TreeBuilder, edgeSizes } from "@svc/schema/transparency"
import { Clock, Effect, Exit, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { SvcConfig } from "../config/resolved.js"
import { retryDeadlocks } from "../database/deadlock.js"
import { eventLoopTurn } from "../database/event-loop.js"
import { EventOutbox } from "../events/outbox.js"
import { leafData } from "./leaf.js"
import { LogRepo, type NewLeaf, type NewNode } from "./repository.js"
import { LogSigner } from "./signer.js"
import type { NodeKey } from "./tree.js"

/** Acts sequenced per transaction. */
const BATCH = 1000

/**
 * The log's sequencer: every `checkpointIntervalSeconds` it appends the acts saved since (oldest
 * first) to the tenant's tree and signs a checkpoint of the new size. Saves never wait for it:
 * it reads committed rows, so an act joins the log at the first round after its commit and has
 * its proof within one interval. One replica sequences at a time, under a lease in
 * `svc_log_state`; the tree size moves only under that lease, so a replica whose lease ran out
 * writes nothing.
 */
export class LogSequencer extends Effect.Service<LogSequencer>()("@svc/backend/LogSequencer", {
  dependencies: [LogRepo.Default, LogSigner.Default, EventOutbox.Default],
  effect: Effect.gen(function*() {
    const config = yield* SvcConfig
    const sql = yield* SqlClient.SqlClient
    const repo = yield* LogRepo
    const outbox = yield* EventOutbox
    const { intervalSeconds, signer } = yield* LogSigner
    const tenantId = config.tenantId ?? ""
    const owner = randomBytes(12).toString("base64url")
    const leaseMs = Math.max(30_000, 3 * intervalSeconds * 1000)

    const holdLease = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      return yield* repo.lease({ tenantId, owner, now, until: now + leaseMs })
    })

    /** The tree as stored: its size and right edge. */
    const currentTree = Effect.gen(function*() {
      const size = yield* repo.treeSize(tenantId)
      const keys: Array<NodeKey> = []
      let start = 0
      for (const part of edgeSizes(size)) {
        keys.push([Math.log2(part), start / part])
        start += part
      }
      const nodes = yield* repo.nodes(tenantId, keys)
      const edge = keys.map(([level, index]) => {
        const hash = nodes.get(`${level}:${index}`)
        if (hash === undefined) throw new Error(`the log has no node ${level}:${index}`)
        return hash
      })
      return TreeBuilder.resume(size, edge)
    })

    /**
     * Appends one batch of pending acts; returns how many (none when some moved meanwhile: the
     * round ends and the next reads them again), or `undefined` when the lease was lost.
     */
    const appendBatch = Effect.gen(function*() {
      const rows = yield* repo.pending(tenantId, BATCH)
      if (rows.length === 0) return 0
      const tree = yield* currentTree
      const from = tree.size
      const leaves: Array<NewLeaf> = []
      const nodes: Array<NewNode> = []
      for (const row of rows) {
        const hash = leafHash(leafData(row))
        leaves.push({ index: tree.size, consentId: row.id, hash })
        for (const [level, index, node] of tree.push(hash)) nodes.push({ level, index, hash: node })
      }
      const moved = yield* sql.withTransaction(repo.append({ tenantId, owner, from, leaves, nodes })).pipe(
        retryDeadlocks,
        Effect.catchTag(
          "ActsMovedWhileSequenced",
          (moved) =>
            Effect.logWarning("transparency log: acts moved while sequenced; the batch waits for the next round").pipe(
              Effect.annotateLogs({ expected: moved.expected, updated: moved.updated }),
              Effect.as("again" as const)
            )
        )
      )
      return moved === "again" ? 0 : moved ? rows.length : undefined
    })

    /** Signs a checkpoint of the stored tree unless the latest one has its size. */
    const checkpoint = (noteSigner: NoteSigner) =>
      Effect.gen(function*() {
        const tree = yield* currentTree
        const latest = yield* repo.latestCheckpoint(tenantId)
        if (Option.isSome(latest) && latest.value.tree_size >= tree.size) return false
        const root = tree.root()
        const note = noteSigner.sign(checkpointText({ origin: noteSigner.name, size: tree.size, root }))
        const now = yield* Clock.currentTimeMillis
        return yield* sql.withTransaction(Effect.gen(function*() {
          const stored = yield* repo.insertCheckpoint({ tenantId, treeSize: tree.size, root, note, now })
          if (stored) {
            yield* outbox.append({
              schema: LogCheckpointEvent,
              type: "log.checkpoint",
              orderKey: "log",
              data: { treeSize: tree.size, rootHash: root.toString("base64"), checkpoint: note }
            })
          }
          return stored
        })).pipe(retryDeadlocks)
      })

    /**
     * One round: sequences the pending acts in batches until one is short of `BATCH` (renewing the
     * lease per batch), then signs a checkpoint.
     */
    const round = Effect.gen(function*() {
      if (signer === undefined) return { appended: 0, checkpoint: false }
      let appended = 0
      while (yield* holdLease) {
        const count = yield* appendBatch
        if (count === undefined) break
        appended += count
        // A batch short of BATCH was everything pending when it was read: acts saved since wait for
        // the next round. Under a steady stream of saves a round is then one batch and its
        // checkpoint, not a loop of small batches of whatever arrived meanwhile (each paying the
        // lease, the tree's edge and a transaction again) that signs no checkpoint until saves pause.
        if (count < BATCH) break
        // A backlog is many batches; on SQLite each runs synchronously, so requests (and, at
        // start, the listening socket) get the event loop between them.
        yield* eventLoopTurn
      }
      if (!(yield* holdLease)) return { appended, checkpoint: false }
      return { appended, checkpoint: yield* checkpoint(signer) }
    })

    /** Rounds until interrupted, one per interval; a failed round is logged once per outage. */
    const run = Effect.gen(function*() {
      let failed = 0
      while (true) {
        const exit = yield* Effect.exit(round)
        if (Exit.isSuccess(exit)) {
          if (failed > 0) yield* Effect.logInfo(`transparency log sequencing resumed after ${failed} failed rounds`)
          failed = 0
        } else {
          if (failed === 0) yield* Effect.logWarning("transparency log round failed; trying again", exit.cause)
          failed++
        }
        yield* Effect.sleep(intervalSeconds * 1000)
      }
    })

    return { round, run } as const
  })
}) {}

/** Runs the sequencer for the lifetime of the instance, when `transparencyLog` is configured. */
export const LogSequencingLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* SvcConfig
    if (config.transparencyLog === undefined) return
    const sequencer = yield* LogSequencer
    yield* Effect.forkScoped(sequencer.run)
  })
).pipe(Layer.provide(LogSequencer.Default))
