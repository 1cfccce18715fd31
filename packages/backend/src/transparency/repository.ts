import { SqlClient, SqlSchema } from "@effect/sql"
import { Data, Effect, Schema } from "effect"
import { Millis } from "../database/columns.js"
import { changedRows } from "../database/database-error.js"
import { findAll } from "../database/rows.js"
import { powerOfTwoRuns } from "../database/statement-runs.js"
import { tenantColumnBesideIds } from "../database/tenant-column.js"
import { LEAF_COLUMN_LIST, LeafColumns } from "./leaf.js"
import type { NodeKey } from "./tree.js"

/**
 * Some of a batch's acts were no longer where the sequencer read them when it set their indices
 * (an act at an odd date moved into its month's new partition, or a month dropped meanwhile): the
 * batch's transaction is undone rather than commit leaves whose rows do not claim them, and the
 * next round reads the acts again.
 */
export class ActsMovedWhileSequenced extends Data.TaggedError("ActsMovedWhileSequenced")<{
  readonly expected: number
  readonly updated: number
}> {}

/** A leaf as stored: its index, act and hash (hex). */
export const LeafRow = Schema.Struct({ leaf_index: Millis, consent_id: Schema.String, leaf_hash: Schema.String })
export type LeafRow = typeof LeafRow.Type

/** An act with the index the sequencer gave it. */
export const IndexedLeafColumns = Schema.Struct({ ...LeafColumns.fields, log_index: Schema.NullOr(Millis) })
export type IndexedLeafColumns = typeof IndexedLeafColumns.Type

export const CheckpointRow = Schema.Struct({ tree_size: Millis, root_hash: Schema.String, note: Schema.String })
export type CheckpointRow = typeof CheckpointRow.Type

/** A complete subtree to store: level >= 1 (level 0 is a leaf). */
export interface NewNode {
  readonly level: number
  readonly index: number
  readonly hash: Buffer
}

export interface NewLeaf {
  readonly index: number
  readonly consentId: string
  readonly hash: Buffer
}

const TreeSize = Schema.Struct({ tree_size: Millis })

/** SQL of the transparency log; every statement is scoped to the tenant (`''` without one). */
export class LogRepo extends Effect.Service<LogRepo>()("@svc/backend/LogRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const leafColumns = sql.literal(LEAF_COLUMN_LIST)
    /** A 64-bit integer type for CAST. */
    const integer = sql.literal(sql.onDialectOrElse({ mysql: () => "SIGNED", orElse: () => "BIGINT" }))

    /**
     * Takes or renews the sequencer's lease: the state row is created once, then held by whoever
     * holds a lease that has not run out. Returns whether `owner` holds it now.
     */
    const lease = (
      input: { readonly tenantId: string; readonly owner: string; readonly now: number; readonly until: number }
    ) =>
      Effect.gen(function*() {
        const values = sql`(tenant_id, tree_size, lease_owner, lease_until) VALUES (${input.tenantId}, 0, NULL, 0)`
        yield* sql.onDialectOrElse({
          mysql: () => sql`INSERT IGNORE INTO svc_log_state ${values}`,
          orElse: () => sql`INSERT INTO svc_log_state ${values} ON CONFLICT DO NOTHING`
        })
        const changed = yield* sql`UPDATE svc_log_state SET lease_owner = ${input.owner}, lease_until = ${input.until}
          WHERE tenant_id = ${input.tenantId} AND (lease_owner = ${input.owner} OR lease_until < ${input.now})`.raw
        return changedRows(changed) === 1
      })

    const treeSize = (tenantId: string) =>
      SqlSchema.findOne({
        Request: Schema.String,
        Result: TreeSize,
        execute: (tenant) => sql`SELECT tree_size FROM svc_log_state WHERE tenant_id = ${tenant}`
      })(tenantId).pipe(Effect.map((row) => row._tag === "Some" ? row.value.tree_size : 0))

    /**
     * The order of `svc_consents_log` past `log_index IS NULL`. Postgres takes `IS NULL` as no
     * equality for ordering, so it is told the whole index order (else a backlog is sorted whole for
     * every batch); MySQL sorts when told that, and reads the index in order without it.
     */
    const pendingOrder = sql.onDialectOrElse({
      pg: () => sql`ORDER BY c.tenant_id, c.log_index, c.created_at, c.id`,
      orElse: () => sql`ORDER BY c.created_at, c.id`
    })

    /** Acts not yet in the log, oldest first (read from `svc_consents_log` in its order). */
    const pending = (tenantId: string, limit: number) =>
      findAll({
        Request: Schema.Void,
        Result: LeafColumns,
        execute: () =>
          sql`SELECT ${leafColumns} FROM svc_consents c WHERE c.tenant_id = ${tenantId} AND c.log_index IS NULL
              ${pendingOrder} LIMIT ${limit}`
      })(undefined)

    /** The hashes of the given subtrees, keyed `level:index`. */
    const nodes = (tenantId: string, keys: ReadonlyArray<NodeKey>) =>
      Effect.gen(function*() {
        const found = new Map<string, Buffer>()
        const leaves = keys.filter(([level]) => level === 0).map(([, index]) => index)
        if (leaves.length > 0) {
          const rows = yield* sql<{ leaf_index: number | string; leaf_hash: string }>`SELECT leaf_index, leaf_hash
            FROM svc_log_leaves WHERE tenant_id = ${tenantId} AND leaf_index IN ${sql.in(leaves)}`
          for (const row of rows) found.set(`0:${Number(row.leaf_index)}`, Buffer.from(row.leaf_hash, "hex"))
        }
        const inner = keys.filter(([level]) => level > 0)
        if (inner.length > 0) {
          const indicesByLevel = new Map<number, Array<number>>()
          for (const [level, index] of inner) {
            const indices = indicesByLevel.get(level)
            if (indices === undefined) indicesByLevel.set(level, [index])
            else indices.push(index)
          }
          // One indexed lookup per level: as one OR of (level, index) terms, SQLite's planner gave up the
          // primary key past a handful of terms and read every node of the tenant (tens of ms at 100,000).
          const perLevel = [...indicesByLevel].map(([level, indices]) =>
            sql`SELECT level, node_index, hash FROM svc_log_nodes
              WHERE tenant_id = ${tenantId} AND level = ${level} AND node_index IN ${sql.in(indices)}`
          )
          const rows = yield* sql<{ level: number | string; node_index: number | string; hash: string }>`${
            sql.join(" UNION ALL ", false)(perLevel)
          }`
          for (const row of rows)
            found.set(`${Number(row.level)}:${Number(row.node_index)}`, Buffer.from(row.hash, "hex"))
        }
        return found
      })

    /**
     * Appends leaves (and the subtrees they complete) to a tree of `from` leaves, giving each act
     * its index. The state row moves from `from` only under `owner`'s lease: a replica whose lease
     * ran out, or which read an older size, changes nothing. The caller runs it in a transaction.
     */
    const append = (input: {
      readonly tenantId: string
      readonly owner: string
      readonly from: number
      readonly leaves: ReadonlyArray<NewLeaf>
      readonly nodes: ReadonlyArray<NewNode>
    }) =>
      Effect.gen(function*() {
        const to = input.from + input.leaves.length
        const moved = yield* sql`UPDATE svc_log_state SET tree_size = ${to}
          WHERE tenant_id = ${input.tenantId} AND tree_size = ${input.from} AND lease_owner = ${input.owner}`.raw
        if (changedRows(moved) !== 1) return false
        // Runs of power-of-two lengths: a handful of statement texts, each prepared once (see statement-runs.ts).
        for (const run of powerOfTwoRuns(input.leaves, 256)) {
          yield* sql`INSERT INTO svc_log_leaves ${
            sql.insert(run.map((leaf) => ({
              tenant_id: input.tenantId,
              leaf_index: leaf.index,
              consent_id: leaf.consentId,
              leaf_hash: leaf.hash.toString("hex")
            })))
          }`
        }
        for (const run of powerOfTwoRuns(input.nodes, 256)) {
          yield* sql`INSERT INTO svc_log_nodes ${
            sql.insert(run.map((node) => ({
              tenant_id: input.tenantId,
              level: node.level,
              node_index: node.index,
              hash: node.hash.toString("hex")
            })))
          }`
        }
        // Each act's index, up to 64 acts a statement (one CASE over their ids) rather than one
        // statement per act. A bound THEN is cast: PostgreSQL would type it as text.
        let updated = 0
        for (const run of powerOfTwoRuns(input.leaves, 64)) {
          const indices = sql.join(" ", false)(
            run.map((leaf) => sql`WHEN ${leaf.consentId} THEN CAST(${leaf.index} AS ${integer})`)
          )
          const raw = yield* sql`UPDATE svc_consents SET log_index = CASE id ${indices} END
            WHERE ${tenantColumnBesideIds(sql, "tenant_id")} = ${input.tenantId}
            AND id IN ${sql.in(run.map((leaf) => leaf.consentId))}`.raw
          updated += changedRows(raw)
        }
        // A row moved or deleted since it was read (PostgreSQL's UPDATE skips a row a committed
        // DELETE took from under it) would leave its leaf unclaimed and the act to be sequenced again.
        if (updated !== input.leaves.length) {
          return yield* Effect.fail(new ActsMovedWhileSequenced({ expected: input.leaves.length, updated }))
        }
        return true
      })

    const latestCheckpoint = (tenantId: string) =>
      SqlSchema.findOne({
        Request: Schema.String,
        Result: CheckpointRow,
        execute: (tenant) =>
          sql`SELECT tree_size, root_hash, note FROM svc_log_checkpoints WHERE tenant_id = ${tenant}
              ORDER BY tree_size DESC LIMIT 1`
      })(tenantId)

    /** Stores a checkpoint unless one of its size is there; returns whether this call stored it. */
    const insertCheckpoint = (input: {
      readonly tenantId: string
      readonly treeSize: number
      readonly root: Buffer
      readonly note: string
      readonly now: number
    }) => {
      const values = sql`(tenant_id, tree_size, root_hash, note, created_at) VALUES (${input.tenantId},
        ${input.treeSize}, ${input.root.toString("hex")}, ${input.note}, ${input.now})`
      return sql.onDialectOrElse({
        mysql: () => sql`INSERT IGNORE INTO svc_log_checkpoints ${values}`.raw,
        orElse: () => sql`INSERT INTO svc_log_checkpoints ${values} ON CONFLICT DO NOTHING`.raw
      }).pipe(Effect.map((raw) => changedRows(raw) === 1))
    }

    /** One act's leaf columns and index. */
    const leafOf = (tenantId: string, consentId: string) =>
      SqlSchema.findOne({
        Request: Schema.String,
        Result: IndexedLeafColumns,
        execute: (id) =>
          sql`SELECT ${leafColumns}, c.log_index FROM svc_consents c WHERE c.id = ${id} AND c.tenant_id = ${tenantId}`
      })(consentId)

    // ---- svc verify: everything, in pages ----------------------------------------------------

    const leavesPage = (tenantId: string, after: number, limit: number) =>
      findAll({
        Request: Schema.Void,
        Result: LeafRow,
        execute: () =>
          sql`SELECT leaf_index, consent_id, leaf_hash FROM svc_log_leaves
              WHERE tenant_id = ${tenantId} AND leaf_index > ${after} ORDER BY leaf_index LIMIT ${limit}`
      })(undefined)

    /** Acts whose index lies in `[from, to]`, by index (two acts claiming one index both come back). */
    const indexedActs = (tenantId: string, from: number, to: number) =>
      findAll({
        Request: Schema.Void,
        Result: IndexedLeafColumns,
        execute: () =>
          sql`SELECT ${leafColumns}, c.log_index FROM svc_consents c
              WHERE c.tenant_id = ${tenantId} AND c.log_index >= ${from} AND c.log_index <= ${to}
              ORDER BY c.log_index, c.id`
      })(undefined)

    /** Acts claiming an index past the last leaf (at most `limit`). */
    const actsPast = (tenantId: string, last: number, limit: number) =>
      sql<{ id: string }>`SELECT c.id FROM svc_consents c WHERE c.tenant_id = ${tenantId} AND c.log_index > ${last}
        ORDER BY c.log_index LIMIT ${limit}`

    const checkpoints = (tenantId: string) =>
      findAll({
        Request: Schema.Void,
        Result: CheckpointRow,
        execute: () =>
          sql`SELECT tree_size, root_hash, note FROM svc_log_checkpoints WHERE tenant_id = ${tenantId}
              ORDER BY tree_size`
      })(undefined)

    /** How many sequenced acts retention dropped with whole months (`svc_consent_drops`). */
    const droppedSequenced = (tenantId: string) =>
      sql<{ n: number | string | null }>`SELECT SUM(sequenced) AS n FROM svc_consent_drops
        WHERE tenant_id = ${tenantId}`.pipe(Effect.map((rows) => Number(rows[0]?.n ?? 0)))

    const unsequenced = (tenantId: string) =>
      sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM svc_consents c
        WHERE c.tenant_id = ${tenantId} AND c.log_index IS NULL`.pipe(Effect.map((rows) => Number(rows[0]?.n ?? 0)))

    return {
      lease,
      treeSize,
      pending,
      nodes,
      append,
      latestCheckpoint,
      insertCheckpoint,
      leafOf,
      leavesPage,
      indexedActs,
      actsPast,
      droppedSequenced,
      checkpoints,
      unsequenced
    } as const
  })
}) {}
