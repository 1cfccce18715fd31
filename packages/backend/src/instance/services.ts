import { Layer } from "effect"
import { Consents } from "../consents/consents.js"
import { ConsentPartitionJobLive } from "../database/consent-partitions.js"
import { ConsentReads } from "../consents/reads.js"
import { Experiments } from "../experiments/summaries.js"
import { GeoIp } from "../geo/geo-ip.js"
import { EventDeliveries } from "../events/deliveries.js"
import { ApiKeys } from "../access/api-keys.js"
import { Readiness } from "../health/readiness.js"
import { LegalDocuments } from "../legal/documents.js"
import { RateLimits } from "../limits/rate-limits.js"
import { ManifestResponses } from "../policy/manifest-responses.js"
import { PolicyInit } from "../policy/init.js"
import { PolicyManifest } from "../policy/manifest.js"
import { PolicyResolver } from "../policy/resolver.js"
import { SessionReports } from "../policy/sessions.js"
import { VendorList } from "../policy/gvl.js"
import { PolicySnapshots } from "../policy/snapshots.js"
import { ConsentExports } from "../records/consent-exports.js"
import { RetentionJobLive, Retention } from "../retention/purge.js"
import { SubjectExports } from "../records/subject-exports.js"
import { SubjectErasure } from "../erasure/subject-erasure.js"
import { IdentityLinks } from "../identity/identity-links.js"
import { Subjects } from "../subjects/subjects.js"
import { LogProofs } from "../transparency/proofs.js"

/**
 * Every domain service of an instance. Each needs at most `SvcConfig`, `SqlClient` and
 * `EventSinks`, which `svc-services.ts` provides. Add a feature's services here.
 */
export const ServicesLive = Layer.mergeAll(
  ApiKeys.Default,
  Experiments.Default,
  GeoIp.Default,
  PolicyManifest.Default,
  PolicySnapshots.Default,
  PolicyResolver.Default,
  ManifestResponses.Default,
  VendorList.Default,
  SessionReports.Default,
  PolicyInit.Default,
  Consents.Default,
  ConsentReads.Default,
  Subjects.Default,
  IdentityLinks.Default,
  RateLimits.Default,
  LegalDocuments.Default,
  SubjectExports.Default,
  SubjectErasure.Default,
  EventDeliveries.Default,
  ConsentExports.Default,
  Readiness.Default,
  LogProofs.Default,
  // The periodic retention run of every instance (safe with many: see RetentionRepo).
  RetentionJobLive.pipe(Layer.provideMerge(Retention.Default)),
  // The monthly partitions of svc_consents made ahead on PostgreSQL (safe with many: one advisory lock).
  ConsentPartitionJobLive
)
