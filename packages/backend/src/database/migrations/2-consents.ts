import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * One row per consent act. `act_key` identifies the act (tenant, subject, type, domain, givenAt,
 * legal document) and is unique, so a replayed or racing save can never store a second row;
 * `act_digest` is a hash of what the act decided, to tell a retry from a conflicting one.
 * Times are epoch milliseconds.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE svc_consents (
    id VARCHAR(64) NOT NULL PRIMARY KEY,
    tenant_id VARCHAR(255) NOT NULL,
    subject_id VARCHAR(140) NOT NULL,
    act_key VARCHAR(64) NOT NULL,
    act_digest VARCHAR(64) NOT NULL,
    type VARCHAR(64) NOT NULL,
    domain VARCHAR(255) NOT NULL,
    given_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    preferences TEXT NULL,
    receipts TEXT NULL,
    policy_id VARCHAR(64) NULL,
    policy_fingerprint VARCHAR(128) NULL,
    runtime_policy_source VARCHAR(32) NULL,
    legal_release_id VARCHAR(64) NULL,
    ip_address VARCHAR(64) NULL,
    user_agent VARCHAR(512) NULL,
    journey_id VARCHAR(128) NULL,
    experiment_id VARCHAR(128) NULL,
    experiment_arm VARCHAR(128) NULL,
    action VARCHAR(32) NULL,
    surface VARCHAR(32) NULL,
    time_to_decision_ms INTEGER NULL
  )`
  yield* sql`CREATE UNIQUE INDEX svc_consents_act ON svc_consents (act_key)`
  yield* sql`CREATE INDEX svc_consents_subject ON svc_consents (subject_id, given_at)`
  yield* sql`CREATE INDEX svc_consents_experiment ON svc_consents (tenant_id, experiment_id, given_at)`
})
