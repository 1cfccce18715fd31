import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Published legal document releases; the latest publish of a type is current. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE svc_legal_documents (
    id VARCHAR(64) NOT NULL PRIMARY KEY,
    tenant_id VARCHAR(255) NOT NULL,
    type VARCHAR(64) NOT NULL,
    version VARCHAR(64) NOT NULL,
    hash VARCHAR(255) NOT NULL,
    effective_date BIGINT NOT NULL,
    created_at BIGINT NOT NULL
  )`
  yield* sql`CREATE UNIQUE INDEX svc_legal_documents_hash ON svc_legal_documents (tenant_id, type, hash)`
  yield* sql`CREATE INDEX svc_legal_documents_current ON svc_legal_documents (tenant_id, type, created_at)`
})
