import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import {
  ExternalId,
  LinkIdentityRequest,
  LinkIdentityResponse,
  SaveConsentRequest,
  SafeString,
  SaveConsentResponse,
  SubjectId,
  SubjectList,
  SubjectView
} from "@svc/schema"
import { Schema } from "effect"
import {
  ConflictWire,
  IdentityConflictWire,
  IdentityTokenInvalidWire,
  NotFoundWire,
  PolicySnapshotExpiredWire,
  PolicySnapshotInvalidWire,
  StalePolicyWire,
  SubjectConflictWire,
  UnauthorizedWire
} from "../errors.js"
import { ApiKeyAuth, PublicWriteLimit } from "../security.js"

/**
 * Subjects and their consents: save a consent, read a subject, link it to a user (public, the
 * subject id is the capability), and list a user's subjects (API key).
 *
 * @example
 * ```ts
 * import { HttpApi, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
 * import { SubjectsGroup } from "@svc/api"
 * import { Effect } from "effect"
 *
 * // A support tool shows which browsers (subjects) a signed-in customer has consented from.
 * class Subjects extends HttpApi.make("subjects").add(SubjectsGroup) {}
 * const browsersOf = (userId: string, apiKey: string) =>
 *   Effect.gen(function*() {
 *     const svc = yield* HttpApiClient.make(Subjects, {
 *       baseUrl: "https://consent.example.com",
 *       transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(apiKey))
 *     })
 *     const { subjects } = yield* svc.subjects.list({ urlParams: { externalId: userId } })
 *     return subjects.map((subject) => ({ since: subject.createdAt, consents: subject.consents.length }))
 *   })
 * ```
 */
export class SubjectsGroup extends HttpApiGroup.make("subjects")
  .add(
    HttpApiEndpoint.post("create", "/subjects")
      .setPayload(SaveConsentRequest)
      .addSuccess(SaveConsentResponse)
      .addError(ConflictWire)
      .addError(SubjectConflictWire)
      .addError(PolicySnapshotExpiredWire)
      .addError(PolicySnapshotInvalidWire)
      .addError(StalePolicyWire)
      .middleware(PublicWriteLimit)
      .annotate(OpenApi.Summary, "Record a consent submission and its category receipts")
  )
  .add(
    HttpApiEndpoint.get("get", "/subjects/:id")
      .setPath(Schema.Struct({ id: SubjectId }))
      .setUrlParams(Schema.Struct({ type: Schema.optional(SafeString) }))
      .addSuccess(SubjectView)
      .addError(NotFoundWire)
      .annotate(OpenApi.Summary, "A subject's consents and merged choices (the subject id is the capability)")
  )
  .add(
    HttpApiEndpoint.patch("identify", "/subjects/:id")
      .setPath(Schema.Struct({ id: SubjectId }))
      .setPayload(LinkIdentityRequest)
      .addSuccess(LinkIdentityResponse)
      .addError(NotFoundWire)
      .addError(IdentityTokenInvalidWire)
      .addError(IdentityConflictWire)
      .addError(UnauthorizedWire)
      .middleware(PublicWriteLimit)
      .annotate(OpenApi.Summary, "Link a subject to an external identity (verified with an API key or identity token)")
  )
  .add(
    HttpApiEndpoint.get("list", "/subjects")
      .setUrlParams(Schema.Struct({ externalId: ExternalId }))
      .addSuccess(SubjectList)
      .middleware(ApiKeyAuth)
      .annotate(OpenApi.Summary, "Subjects verifiably linked to an external identity")
  ) {}
