import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { ErasureResult, ExternalId, SubjectExport, SubjectId } from "@svc/schema"
import { Schema } from "effect"
import { NotFoundWire } from "../errors.js"
import { ApiKeyAuth } from "../security.js"

/**
 * Proof and data-subject rights (API key): consent records in the ISO/IEC TS 27560 shape of
 * `@svc/schema` for access requests and proof exports.
 */
export class RecordsGroup extends HttpApiGroup.make("records")
  .add(
    HttpApiEndpoint.get("exportSubject", "/subjects/:id/export")
      .setPath(Schema.Struct({ id: SubjectId }))
      .addSuccess(SubjectExport)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "Everything svc holds about one subject: identity links and consent records")
  )
  .add(
    HttpApiEndpoint.get("exportByExternalId", "/subjects/export")
      .setUrlParams(Schema.Struct({ externalId: ExternalId }))
      .addSuccess(SubjectExport)
      .annotate(OpenApi.Summary, "The same for every subject verifiably linked to a user (an access request)")
  )
  .add(
    HttpApiEndpoint.del("eraseSubject", "/subjects/:id")
      .setPath(Schema.Struct({ id: SubjectId }))
      .addSuccess(ErasureResult)
      .annotate(
        OpenApi.Summary,
        "Erase a subject: personal data removed, records kept as anonymous proof (idempotent: zero counts when nothing matched)"
      )
  )
  .add(
    HttpApiEndpoint.del("eraseByExternalId", "/subjects")
      .setUrlParams(Schema.Struct({ externalId: ExternalId }))
      .addSuccess(ErasureResult)
      .annotate(OpenApi.Summary, "Erase every subject verifiably linked to a user (unverified claims on the id are unlinked)")
  )
  .middleware(ApiKeyAuth) {}
