export { createSvcClient, type SvcClient, type SvcClientFor, type SvcPublicClient } from "./client.js"
export type { SvcCallOptions } from "./call-options.js"
export type { HeadersInput } from "./checks.js"
export {
  type BackendErrorCode,
  type ClientErrorCode,
  isSvcError,
  type StalePolicyReason,
  SvcConfigurationError,
  SvcError,
  type SvcErrorCode,
  type SvcErrorJSON,
  type SvcIssue
} from "./errors.js"
export type { SvcEvent, SvcRequestEvent, SvcResponseEvent, SvcRetryEvent } from "./events.js"
export { makeSvcApiClient, type SvcApiClient, type SvcApiClientOptions, SvcHttpClient } from "./effect-client.js"
export { createIdentityToken, type IdentityTokenClaims, type IdentityTokenOptions } from "./identity-token.js"
export type {
  ConsentCheckCode,
  ConsentCheckData,
  ConsentCheckInput,
  ConsentCheckMethod,
  ConsentCheckResult
} from "./methods/consents.js"
export type {
  ConsentExportCode,
  ConsentExportInput,
  ConsentExportMethod,
  ExportedConsentRecord
} from "./methods/consents-export.js"
export type { SummaryCode, SummaryData, SummaryInput } from "./methods/experiments.js"
export type {
  CurrentLegalDocumentCode,
  CurrentLegalDocumentData,
  LegalDocumentListCode,
  LegalDocumentListData,
  PublishCode,
  PublishData,
  PublishInput
} from "./methods/legal-documents.js"
export type {
  InitCode,
  InitData,
  InitInput,
  Manifest,
  ManifestCode,
  ManifestData,
  ManifestInput,
  ReadyCode,
  ReadyData,
  StatusCode,
  StatusData
} from "./methods/service.js"
export type { SaveConsentInput, TimeValue } from "./methods/subjects-create.js"
export type {
  CheckpointCode,
  ConsentProofCode,
  ConsentProofData,
  ConsistencyInput,
  ConsistencyProofCode,
  ConsistencyProofData,
  LogMethods,
  PublicLogMethods,
  VerifierKeyCode
} from "./methods/transparency-log.js"
export {
  type ConsentProofInput,
  type LogCheck,
  type VerifiedCheckpoint,
  verifyCheckpointConsistency,
  verifyConsentProof
} from "./verify-log.js"
export type {
  CreateConsentCode,
  CreateConsentData,
  ErasureCode,
  ErasureData,
  GetSubjectCode,
  GetSubjectInput,
  IdentifyCode,
  IdentifyData,
  IdentifyInput,
  ListSubjectsCode,
  ListSubjectsInput,
  SubjectData,
  SubjectExportCode,
  SubjectExportData,
  SubjectExportInput,
  SubjectExportTarget,
  SubjectListData
} from "./methods/subjects.js"
export type {
  DeliveryData,
  DeliveryListCode,
  DeliveryListData,
  ListDeliveriesInput,
  RetryDeliveryCode
} from "./methods/events.js"
export type { SvcClientOptions, SvcFetch, SvcRetryOptions } from "./options.js"
export { type VerifiedWebhook, verifyWebhook, type WebhookHeaders } from "./webhooks.js"
export {
  type SvcDataOf,
  type SvcErrorCodeOf,
  type SvcFailure,
  type SvcResult,
  type SvcSuccess,
  unwrap
} from "./result.js"
export { CLIENT_VERSION } from "./version.js"
