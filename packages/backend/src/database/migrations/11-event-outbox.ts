import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The transactional outbox of consent events. `svc_events` holds each event once, written in the
 * transaction of the fact it reports; `seq` orders them (a subject's writes are serialized by its
 * row lock, so its events get rising numbers). `svc_event_deliveries` holds one row per event and
 * endpoint: its status, attempts, next attempt and the lease (`claim`, `lease_until`) of the
 * replica delivering it. `svc_event_endpoints` lists endpoints disabled by a 410. Times are epoch ms.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const seq = sql.onDialectOrElse({
    pg: () => sql.literal("seq BIGSERIAL PRIMARY KEY"),
    mysql: () => sql.literal("seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY"),
    orElse: () => sql.literal("seq INTEGER PRIMARY KEY AUTOINCREMENT")
  })
  // A consent record with a large vendor choice passes MySQL's 64 KB TEXT.
  const payload = sql.onDialectOrElse({ mysql: () => sql.literal("MEDIUMTEXT"), orElse: () => sql.literal("TEXT") })
  const binary = sql.onDialectOrElse({
    mysql: () => sql.literal("CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"),
    orElse: () => sql.literal("")
  })
  yield* sql`CREATE TABLE svc_events (
    ${seq},
    id VARCHAR(64) NOT NULL,
    tenant_id VARCHAR(255) NOT NULL,
    type VARCHAR(64) NOT NULL,
    occurred_at BIGINT NOT NULL,
    payload ${payload} NOT NULL
  ) ${binary}`
  yield* sql`CREATE UNIQUE INDEX svc_events_id ON svc_events (id)`
  yield* sql`CREATE TABLE svc_event_deliveries (
    id VARCHAR(64) NOT NULL PRIMARY KEY,
    event_seq BIGINT NOT NULL,
    tenant_id VARCHAR(255) NOT NULL,
    endpoint VARCHAR(128) NOT NULL,
    order_key VARCHAR(160) NOT NULL,
    status VARCHAR(16) NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    last_attempt_at BIGINT NULL,
    lease_until BIGINT NULL,
    claim VARCHAR(64) NULL,
    last_status INTEGER NULL,
    last_error VARCHAR(512) NULL,
    created_at BIGINT NOT NULL,
    delivered_at BIGINT NULL
  ) ${binary}`
  yield* sql`CREATE INDEX svc_event_deliveries_due ON svc_event_deliveries (tenant_id, status, next_attempt_at)`
  yield* sql`CREATE INDEX svc_event_deliveries_order ON svc_event_deliveries (tenant_id, endpoint, order_key, status, event_seq)`
  yield* sql`CREATE INDEX svc_event_deliveries_claim ON svc_event_deliveries (claim)`
  yield* sql`CREATE TABLE svc_event_endpoints (
    tenant_id VARCHAR(255) NOT NULL,
    endpoint VARCHAR(128) NOT NULL,
    disabled_at BIGINT NOT NULL,
    reason VARCHAR(512) NOT NULL,
    PRIMARY KEY (tenant_id, endpoint)
  ) ${binary}`
})
