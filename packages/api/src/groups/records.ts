import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Domain, ErasureResult, ExternalId, PolicyType, SafeText, SubjectExport, SubjectId, Token } from "@svc/schema"
import { Schema } from "effect"
import { NotFoundWire } from "../errors.js"
import { ApiKeyAuth } from "../security.js"

/**
 * `proofs=true`: each exported record carries `logProof`, its inclusion proof in the transparency
 * log, all against the latest checkpoint when the export starts (`null` for a record in none).
 */
const proofs = Schema.optional(
  Schema.BooleanFromString.annotations({
    description: "true: each record carries logProof, its transparency-log inclusion proof (default false)"
  })
)

/**
 * Proof and data-subject rights (API key): consent records in the ISO/IEC TS 27560 shape of
 * `@svc/schema` for access requests and proof exports.
 *
 * @example
 * ```ts
 * import { HttpApi, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
 * import { RecordsGroup } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // A data-subject access request: everything svc holds about one user, for the DPO's reply.
 * class Records extends HttpApi.make("records").add(RecordsGroup) {}
 * const accessRequest = (userId: string, apiKey: string) =>
 *   Effect.gen(function*() {
 *     const svc = yield* HttpApiClient.make(Records, {
 *       baseUrl: "https://consent.example.com",
 *       transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(apiKey))
 *     })
 *     const exported = yield* svc.records.exportByExternalId({ urlParams: { externalId: userId } })
 *     return exported.subjects.flatMap((subject) => subject.records)
 *   })
 * ```
 */
export class RecordsGroup extends HttpApiGroup.make("records")
  .add(
    HttpApiEndpoint.get("exportSubject", "/subjects/:id/export")
      .setPath(Schema.Struct({ id: SubjectId }))
      .setUrlParams(Schema.Struct({ proofs }))
      .addSuccess(SubjectExport)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "Everything svc holds about one subject: identity links and consent records")
  )
  .add(
    HttpApiEndpoint.get("exportByExternalId", "/subjects/export")
      .setUrlParams(Schema.Struct({ externalId: ExternalId, proofs }))
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
      .annotate(
        OpenApi.Summary,
        "Erase every subject verifiably linked to a user (unverified claims on the id are unlinked)"
      )
  )
  .add(
    HttpApiEndpoint.get("exportConsents", "/consents/export")
      .setUrlParams(Schema.Struct({
        /** ISO 8601 date or date-time; a bare `to` date covers its whole UTC day. At most 366 days. */
        from: SafeText(64),
        to: SafeText(64),
        format: Schema.optional(Schema.Literal("ndjson", "csv")),
        type: Schema.optional(PolicyType),
        domain: Schema.optional(Domain),
        policyId: Schema.optional(Token(64)),
        /** Not with `format=csv` (400): a proof is read by a program, from the NDJSON. */
        proofs
      }))
      .addSuccess(Schema.String.pipe(HttpApiSchema.withEncoding({ kind: "Text", contentType: "application/x-ndjson" })))
      .annotate(
        OpenApi.Description,
        "Streamed: `format=ndjson` (default) is one StandardConsentRecord per line (application/x-ndjson); `format=csv` " +
          "is text/csv with a header row and one row per category receipt. Records of the period oldest first. " +
          "`proofs=true` (NDJSON only) adds each record's transparency-log proof as `logProof`."
      )
      .annotate(OpenApi.Summary, "Every consent record given in a period, streamed as NDJSON or CSV")
  )
  .middleware(ApiKeyAuth) {}
