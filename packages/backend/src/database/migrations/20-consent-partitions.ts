import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { monthName, monthOf, monthStart } from "../consent-months.js"

/**
 * PostgreSQL: `svc_consents` becomes range-partitioned by `given_at`, one partition per UTC month
 * (`svc_consents_YYYY_MM`) and a default one (`svc_consents_default`) for acts outside every month
 * made (docs/adr/0095-monthly-consent-partitions.md). In place, in the migrations' one transaction:
 * a new partitioned table like the old one, a partition for every month that has rows and for this
 * month and the next two, the rows copied, the old table dropped and the new one renamed, then the
 * old table's indexes made again under their names. Two unique keys gain `given_at`, as PostgreSQL
 * requires of a partitioned table: the primary key becomes `(id, given_at)` and `svc_consents_act`
 * `(act_key, given_at)`; an act's key is a hash over its `givenAt`, so two rows with one `act_key`
 * have one `given_at` and the index still admits one row per act.
 * Every dialect: `svc_consent_drops`, one row per month of records retention dropped whole
 * (`retention.dropExpiredMonths`), with how many of them the transparency log had sequenced, so
 * `svc verify` tells a month retention dropped from rows deleted behind its back.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const binary = sql.literal(
    sql.onDialectOrElse({ mysql: () => " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", orElse: () => "" })
  )
  yield* sql`CREATE TABLE svc_consent_drops (
    tenant_id VARCHAR(255) NOT NULL,
    month_start BIGINT NOT NULL,
    month_end BIGINT NOT NULL,
    sequenced BIGINT NOT NULL,
    dropped_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, month_start)
  )${binary}`
  yield* sql.onDialectOrElse({ pg: () => partition(sql), orElse: () => Effect.void })
})

const partition = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const indexes = yield* sql<{ name: string; definition: string; primary: boolean; unique: boolean }>`
      SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition, i.indisprimary AS primary,
        i.indisunique AS unique
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = to_regclass('svc_consents') ORDER BY c.relname`
    yield* sql`CREATE TABLE svc_consents_partitioned (LIKE svc_consents INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
      PARTITION BY RANGE (given_at)`
    const withRows = yield* sql<{ month: number | string }>`
      SELECT DISTINCT (EXTRACT(YEAR FROM to_timestamp(given_at / 1000.0) AT TIME ZONE 'UTC') * 12
        + EXTRACT(MONTH FROM to_timestamp(given_at / 1000.0) AT TIME ZONE 'UTC') - 1)::int AS month
      FROM svc_consents`
    const now = monthOf(Date.now())
    const months = new Set([...withRows.map((row) => Number(row.month)), now, now + 1, now + 2])
    for (const month of [...months].sort((a, b) => a - b)) {
      yield* sql`CREATE TABLE ${sql(monthName(month))} PARTITION OF svc_consents_partitioned
        FOR VALUES FROM (${sql.literal(String(monthStart(month)))}) TO (${sql.literal(String(monthStart(month + 1)))})`
    }
    yield* sql`CREATE TABLE svc_consents_default PARTITION OF svc_consents_partitioned DEFAULT`
    yield* sql`INSERT INTO svc_consents_partitioned SELECT * FROM svc_consents`
    yield* sql`DROP TABLE svc_consents`
    yield* sql`ALTER TABLE svc_consents_partitioned RENAME TO svc_consents`
    yield* sql`ALTER TABLE svc_consents ADD PRIMARY KEY (id, given_at)`
    for (const index of indexes) {
      if (index.primary) continue
      const definition = index.unique && index.name === "svc_consents_act"
        ? index.definition.replace(/\(act_key\)$/, "(act_key, given_at)")
        : index.definition
      if (index.unique && !definition.includes("given_at")) {
        return yield* Effect.dieMessage(`unique index ${index.name} cannot be partitioned by given_at`)
      }
      yield* sql.unsafe(definition)
    }
  })
