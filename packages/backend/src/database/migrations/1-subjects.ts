import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Subjects (visitors) and their identity link. `tenant_id` is `''` in single-tenant scope. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE svc_subjects (
    id VARCHAR(140) NOT NULL PRIMARY KEY,
    tenant_id VARCHAR(255) NOT NULL,
    external_id VARCHAR(255) NULL,
    identity_provider VARCHAR(64) NULL,
    verified SMALLINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`
  yield* sql`CREATE INDEX svc_subjects_external ON svc_subjects (tenant_id, external_id, verified)`
})
