export { defineConfig } from "./config/define.js"
export { SvcConfigurationError } from "./config/errors.js"
export type * from "./config/options.js"
export { MAX_BODY_BYTES, type ResolvedConfig, SvcConfig } from "./config/resolved.js"
export { resolveOptions } from "./config/validate.js"
export { databaseUrlProblem } from "./config/database-options.js"
export { LOG_FORMATS, REQUEST_LOG_LEVELS } from "./config/schema.js"
export { sqlClientLayer } from "./database/client.js"
export { ReadSqlClient, readSqlClientLayer } from "./database/read-client.js"
export { migrateDatabase } from "./database/migrate.js"
export { ConsentPartitions } from "./database/consent-partitions.js"
export { migrations } from "./database/migrations/index.js"
export { ConsentExports, type ExportFormat, type PeriodQuery } from "./records/consent-exports.js"
export { Retention, type RetentionReport } from "./retention/purge.js"
export { purgeOnce } from "./retention/run-once.js"
export { makeServerSvcLayer, makeStandaloneSvcLayer, makeSvcLayer, type SvcLayerOptions } from "./instance/layer.js"
export { type SvcService, SvcServices, type SvcServicesOptions } from "./instance/svc-services.js"
export { Consents, type ConsentVisitor, type SaveError } from "./consents/consents.js"
export { Subjects, type SubjectTarget } from "./subjects/subjects.js"
export type { LinkedSubject } from "./identity/identity-links.js"
export { LegalDocuments } from "./legal/documents.js"
export { Experiments, type SummaryBound } from "./experiments/summaries.js"
export { type InitAnswer, type InitLocation, PolicyInit, type InitRequest } from "./policy/init.js"
/** The expected failures of the services: `Schema.TaggedError`s of the `@svc/api` contract. */
export {
  Conflict,
  DatabaseError,
  IdentityConflict,
  InvalidRequest,
  NotFound,
  PolicySnapshotExpired,
  PolicySnapshotInvalid,
  StalePolicy,
  SubjectConflict
} from "@svc/api"
export { type LogProblem, type LogVerification, verifyTransparencyLog } from "./transparency/verify.js"
export { generateLogSignerKey } from "./transparency/keys.js"
export { type SvcInstance, svcInstance, type SvcRequestContext } from "./instance/svc-instance.js"
export { openApiDocument } from "./http/openapi.js"
export { type IdentityClaims, signIdentityToken, verifyIdentityToken } from "./identity/tokens.js"
export { GvlSource, gvlFileSource, gvlUrlSource, VendorList } from "./policy/gvl.js"
export { PolicyManifest, ruleFingerprint } from "./policy/manifest.js"
export { type Resolution, PolicyResolver } from "./policy/resolver.js"
export { SessionReports, type Visitor } from "./policy/sessions.js"
export { type SnapshotClaims, PolicySnapshots } from "./policy/snapshots.js"
export {
  LEGAL_SNAPSHOT_TTL_SECONDS,
  type LegalDocumentSnapshot,
  type LegalDocumentSnapshotSettings,
  signLegalDocumentSnapshot,
  verifyLegalDocumentSnapshot
} from "./legal/snapshot-tokens.js"
export {
  type FastInitAnswer,
  type IncomingHeaders,
  type InitFastAnswer,
  InitFastPath,
  InitFastPathLive
} from "./instance/init-fast-path.js"
export {
  Delivered,
  type DeliveryOutcome,
  EndpointGone,
  type EventSink,
  EventSinks,
  type OutgoingEvent,
  RetryLater
} from "./config/event-sinks.js"
export { EventOutbox, type PendingEvent } from "./events/outbox.js"
