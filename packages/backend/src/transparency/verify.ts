import {
  checkpointText,
  equalBytes,
  leafHash,
  type NoteVerifier,
  openNote,
  parseCheckpointText,
  parseSignerKey,
  parseVerifierKey,
  TreeBuilder
} from "@svc/schema/transparency"
import { Effect, Layer } from "effect"
import type { SvcOptions } from "../config/options.js"
import { SvcConfig } from "../config/resolved.js"
import { resolveOptions } from "../config/validate.js"
import { sqlClientLayer } from "../database/client.js"
import { leafData } from "./leaf.js"
import { type CheckpointRow, type IndexedLeafColumns, LogRepo } from "./repository.js"

/** Leaves read per statement. */
const PAGE = 10_000

/**
 * One thing `svc verify` found wrong: the act or checkpoint, and what.
 *
 * @example
 * ```ts
 * import { type LogProblem, verifyTransparencyLog } from "@svc/backend"
 *
 * // The audit report: each record found edited, deleted or reordered, once, and each bad checkpoint.
 * const report = (problems: ReadonlyArray<LogProblem>) => ({
 *   records: [...new Set(problems.flatMap((problem) => problem.consentId ?? []))],
 *   checkpoints: problems.flatMap((problem) => problem.checkpoint ?? [])
 * })
 * const { problems } = await verifyTransparencyLog({ database: { dialect: "postgres", url: process.env.DATABASE_URL! },
 *   transparencyLog: { signingKey: process.env.SVC_LOG_SIGNER_KEY! } })
 * console.log(report(problems))
 * ```
 */
export interface LogProblem {
  readonly consentId?: string
  readonly checkpoint?: number
  readonly message: string
}

/**
 * What `verifyTransparencyLog` (`svc verify`) found: how many leaves and checkpoints it checked,
 * how many acts still wait for the sequencer, and every problem.
 *
 * @example
 * ```ts
 * import type { LogVerification } from "@svc/backend"
 *
 * // The line a nightly audit job posts to the privacy team's channel.
 * const summary = (result: LogVerification) =>
 *   result.problems.length === 0
 *     ? `log intact: ${result.leaves} records, ${result.checkpoints} checkpoints (${result.pending} pending)`
 *     : `log check FAILED: ${result.problems.length} problems, first: ${result.problems[0]?.message}`
 * ```
 */
export interface LogVerification {
  readonly leaves: number
  readonly checkpoints: number
  /** Acts saved but not sequenced yet (they join the log at the sequencer's next round). */
  readonly pending: number
  readonly problems: ReadonlyArray<LogProblem>
}

/**
 * Recomputes the log from the stored rows (`svc verify`): every act's leaf from its row, the tree
 * from those leaves, and every stored checkpoint's signature and root against it. Names each act
 * whose row was edited, deleted or moved to another index, and each checkpoint that does not match.
 * Leaves whose rows retention dropped with whole months (`svc_consent_drops`) are no problem when
 * exactly as many rows are missing as the drops counted sequenced; otherwise every missing one is
 * named (up to 1,000) with both counts.
 * Memory stays flat: leaves are read a page at a time and the tree keeps only its right edge.
 */
export const verifyLog = (verifier: NoteVerifier) =>
  Effect.gen(function*() {
    const config = yield* SvcConfig
    const repo = yield* LogRepo
    const tenantId = config.tenantId ?? ""
    const problems: Array<LogProblem> = []
    const checkpoints: ReadonlyArray<CheckpointRow> = yield* repo.checkpoints(tenantId)
    let nextCheckpoint = 0
    const tree = new TreeBuilder()

    /** Checks the checkpoints whose size the tree has reached. */
    const checkReached = () => {
      while (nextCheckpoint < checkpoints.length && checkpoints[nextCheckpoint]!.tree_size <= tree.size) {
        const row = checkpoints[nextCheckpoint++]!
        if (row.tree_size !== tree.size) continue // a size the walk skipped: reported by checkNote
        if (!equalBytes(tree.root(), Buffer.from(row.root_hash, "hex"))) {
          problems.push({
            checkpoint: row.tree_size,
            message: `checkpoint ${row.tree_size}: its root does not match the tree of the stored records`
          })
        }
      }
    }

    const checkNote = (row: CheckpointRow) => {
      const text = openNote(row.note, verifier)
      const parsed = text === undefined ? undefined : parseCheckpointText(text)
      if (parsed === undefined) {
        problems.push({
          checkpoint: row.tree_size,
          message: `checkpoint ${row.tree_size}: its signature does not verify`
        })
      } else if (
        parsed.size !== row.tree_size || parsed.origin !== verifier.name ||
        parsed.root.toString("hex") !== row.root_hash
      ) {
        problems.push({
          checkpoint: row.tree_size,
          message: `checkpoint ${row.tree_size}: the signed note says ${
            JSON.stringify(checkpointText(parsed).trim())
          }, not the stored size and root`
        })
      }
    }
    checkpoints.forEach(checkNote)
    checkReached() // a checkpoint of the empty tree
    const dropped = yield* repo.droppedSequenced(tenantId)
    const rowless: Array<LogProblem> = []
    let rowlessCount = 0

    let after = -1
    for (;;) {
      const leaves = yield* repo.leavesPage(tenantId, after, PAGE)
      if (leaves.length === 0) break
      const first = leaves[0]!.leaf_index
      const last = leaves.at(-1)!.leaf_index
      const acts = yield* repo.indexedActs(tenantId, first, last)
      const byIndex = new Map<number, Array<IndexedLeafColumns>>()
      for (const act of acts) {
        const index = act.log_index ?? -1
        byIndex.set(index, [...(byIndex.get(index) ?? []), act])
      }
      for (const leaf of leaves) {
        const index = leaf.leaf_index
        if (index !== tree.size) {
          problems.push({ message: `leaves ${tree.size} to ${index - 1} are missing from the log` })
          while (tree.size < index) tree.push(Buffer.alloc(32))
        }
        const claimed = byIndex.get(index) ?? []
        const own = claimed.find((act) => act.id === leaf.consent_id)
        for (const act of claimed) {
          if (act !== own) {
            problems.push({
              consentId: act.id,
              message: `consent ${act.id}: its row claims leaf ${index}, which is ${leaf.consent_id}'s (reordered)`
            })
          }
        }
        if (own === undefined) {
          const problem = {
            consentId: leaf.consent_id,
            message: `consent ${leaf.consent_id}: leaf ${index} has no row (deleted, or its index was changed)`
          }
          if (dropped === 0) problems.push(problem)
          else if (rowlessCount++ < 1000) rowless.push(problem)
          // The stored leaf stands in, so the checkpoints after it are still checked.
          tree.push(Buffer.from(leaf.leaf_hash, "hex"))
        } else {
          const hash = leafHash(leafData(own))
          if (hash.toString("hex") !== leaf.leaf_hash) {
            problems.push({
              consentId: own.id,
              message: `consent ${own.id}: its row no longer makes leaf ${index} (edited)`
            })
          }
          tree.push(hash)
        }
        checkReached()
      }
      after = last
      if (leaves.length < PAGE) break
    }
    if (dropped !== 0 && rowlessCount !== dropped) {
      problems.push(...rowless, {
        message:
          `${rowlessCount} leaves have no row, but retention dropped ${dropped} sequenced records with whole months`
      })
    }
    for (const { id } of yield* repo.actsPast(tenantId, after, 100)) {
      problems.push({ consentId: id, message: `consent ${id}: its row claims a leaf index the log does not have` })
    }
    for (const row of checkpoints.slice(nextCheckpoint)) {
      problems.push({
        checkpoint: row.tree_size,
        message: `checkpoint ${row.tree_size}: the log has only ${tree.size} leaves (truncated)`
      })
    }
    const stateSize = yield* repo.treeSize(tenantId)
    if (stateSize !== tree.size) {
      problems.push({ message: `the log's state says ${stateSize} leaves; ${tree.size} are stored` })
    }
    const result: LogVerification = {
      leaves: tree.size,
      checkpoints: checkpoints.length,
      pending: yield* repo.unsequenced(tenantId),
      problems
    }
    return result
  })

/**
 * `svc verify`: checks the configured database's log with the configured key (the verifier key
 * is derived from the signer key; `verifierKey` checks against a published one instead).
 * Throws `SvcConfigurationError` for invalid options, and an Error when no log is configured.
 *
 * @example
 * ```ts
 * import { verifyTransparencyLog } from "@svc/backend"
 *
 * // An auditor checks the database against the verifier key the company published, not the signer key.
 * const result = await verifyTransparencyLog(
 *   { database: { dialect: "postgres", url: process.env.AUDIT_DATABASE_URL! } },
 *   { verifierKey: "consent.example.com/log+8f2a61c3+AWvN5Bvx0l2Z2q6Yb1Q0nE3mJrS4tU5vW6xY7zA8bC9d" }
 * )
 * process.exitCode = result.problems.length === 0 ? 0 : 1
 * ```
 */
export const verifyTransparencyLog = (
  options: SvcOptions,
  input: { readonly verifierKey?: string } = {}
): Promise<LogVerification> => {
  const config = resolveOptions(options)
  const verifier = input.verifierKey !== undefined
    ? parseVerifierKey(input.verifierKey)
    : config.transparencyLog === undefined
    ? undefined
    : parseVerifierKey(parseSignerKey(config.transparencyLog.signingKey)?.verifierKey ?? "")
  if (verifier === undefined) {
    return Promise.reject(
      new Error(
        input.verifierKey !== undefined
          ? "the verifier key is not an Ed25519 note verifier key"
          : "the config has no transparencyLog.signingKey"
      )
    )
  }
  const layer = LogRepo.Default.pipe(
    Layer.provideMerge(Layer.succeed(SvcConfig, config)),
    Layer.provide(sqlClientLayer(config.database))
  )
  return Effect.runPromise(
    verifyLog(verifier).pipe(Effect.provide(layer))
  )
}
