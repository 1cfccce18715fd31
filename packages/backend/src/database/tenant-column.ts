import type { SqlClient } from "@effect/sql"

/**
 * The tenant column for a statement whose selective condition is a list of ids (`id IN (…)`,
 * `subject_id IN (…)`). SQLite has no statistics unless ANALYZE ran, so it takes `tenant_id = ?`
 * as selective and walks a tenant index, which in a one-tenant database is every row: a
 * retention batch of 1,000 ids read all 1,000,000 records (0.6 s, event loop blocked, per batch).
 * On SQLite the column is written `+tenant_id`, the same test that no index may serve, so the
 * planner takes the id list's index; elsewhere the planner has statistics and the plain column.
 */
export const tenantColumnBesideIds = (sql: SqlClient.SqlClient, column: "tenant_id" | "c.tenant_id") =>
  sql.literal(sql.onDialectOrElse({ sqlite: () => `+${column}`, orElse: () => column }))
