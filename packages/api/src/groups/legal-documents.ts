import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  CurrentLegalDocumentResponse,
  LegalDocumentReleaseList,
  LegalDocumentType,
  PublishLegalDocumentRequest,
  PublishLegalDocumentResponse
} from "@svc/schema"
import { Schema } from "effect"
import { ConflictWire, NotFoundWire } from "../errors.js"
import { ApiKeyAuth } from "../security.js"

const TypePath = Schema.Struct({ type: LegalDocumentType })

/**
 * Legal document releases: publish and list with an API key; the current release is public.
 *
 * @example
 * ```ts
 * import { LegalDocumentsGroup } from "@svc/api"
 *
 * // A README generator lists the legal document routes from the contract itself.
 * const routes = Object.values(LegalDocumentsGroup.endpoints).map((endpoint) => `${endpoint.method} ${endpoint.path}`)
 * // ["PUT /legal-documents/:type/current", "GET /legal-documents/:type/current", "GET /legal-documents/:type"]
 * ```
 */
export class LegalDocumentsGroup extends HttpApiGroup.make("legalDocuments")
  .add(
    HttpApiEndpoint.put("publish", "/legal-documents/:type/current")
      .setPath(TypePath)
      .setPayload(PublishLegalDocumentRequest)
      .addSuccess(PublishLegalDocumentResponse)
      .addError(ConflictWire)
      .middleware(ApiKeyAuth)
      .annotate(OpenApi.Summary, "Publish a legal document's current version, hash and effective date")
  )
  .add(
    HttpApiEndpoint.get("current", "/legal-documents/:type/current")
      .setPath(TypePath)
      .addSuccess(CurrentLegalDocumentResponse)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "The current (latest published) release of a legal document type")
  )
  .add(
    HttpApiEndpoint.get("list", "/legal-documents/:type")
      .setPath(TypePath)
      .addSuccess(LegalDocumentReleaseList)
      .middleware(ApiKeyAuth)
      .annotate(OpenApi.Summary, "Every release of a legal document type, the current one first")
  ) {}
