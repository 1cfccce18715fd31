import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The transparency log (docs/transparency-log.md). On `svc_consents`: `log_commitment`, the salted
 * commitment to the act's personal data written with the act (base64 SHA-256), `log_salt` its salt
 * (base64, cleared when erasure or retention removes the personal data), `log_index` the leaf
 * index the sequencer gave the act (`NULL` until then). The index `svc_consents_log` finds the acts
 * still to sequence already in the sequencer's order (`log_index IS NULL` is an equality to the
 * planners, then `created_at, id`), so a batch reads its 1,000 entries, not the whole backlog.
 * `svc_log_leaves` holds each leaf's hash and act, `svc_log_nodes` the hash of every complete
 * subtree of two or more leaves (`level` = log2 of its size), `svc_log_checkpoints` each signed
 * checkpoint, `svc_log_state` the tree size and the lease of the replica sequencing.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const binary = sql.literal(
    sql.onDialectOrElse({ mysql: () => " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", orElse: () => "" })
  )
  const noteText = sql.onDialectOrElse({ mysql: () => sql.literal("MEDIUMTEXT"), orElse: () => sql.literal("TEXT") })
  yield* sql`ALTER TABLE svc_consents ADD COLUMN log_commitment VARCHAR(64) NULL`
  yield* sql`ALTER TABLE svc_consents ADD COLUMN log_salt VARCHAR(64) NULL`
  yield* sql`ALTER TABLE svc_consents ADD COLUMN log_index BIGINT NULL`
  yield* sql`CREATE INDEX svc_consents_log ON svc_consents (tenant_id, log_index, created_at, id)`
  yield* sql`CREATE TABLE svc_log_leaves (
    tenant_id VARCHAR(255) NOT NULL,
    leaf_index BIGINT NOT NULL,
    consent_id VARCHAR(64) NOT NULL,
    leaf_hash VARCHAR(64) NOT NULL,
    PRIMARY KEY (tenant_id, leaf_index)
  )${binary}`
  yield* sql`CREATE TABLE svc_log_nodes (
    tenant_id VARCHAR(255) NOT NULL,
    level INTEGER NOT NULL,
    node_index BIGINT NOT NULL,
    hash VARCHAR(64) NOT NULL,
    PRIMARY KEY (tenant_id, level, node_index)
  )${binary}`
  yield* sql`CREATE TABLE svc_log_checkpoints (
    tenant_id VARCHAR(255) NOT NULL,
    tree_size BIGINT NOT NULL,
    root_hash VARCHAR(64) NOT NULL,
    note ${noteText} NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, tree_size)
  )${binary}`
  yield* sql`CREATE TABLE svc_log_state (
    tenant_id VARCHAR(255) NOT NULL PRIMARY KEY,
    tree_size BIGINT NOT NULL,
    lease_owner VARCHAR(64) NULL,
    lease_until BIGINT NOT NULL
  )${binary}`
})
